#!/usr/bin/env node
// The `numakit` executable.
import './v8_early.js'; // first: the agent's V8 flags, before its heap grows
import { runCli } from './run_cli.js';

runCli();
