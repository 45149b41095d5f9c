#!/usr/bin/env node
// The `numakit` executable.
import { runCli } from './run_cli.js';

runCli();
