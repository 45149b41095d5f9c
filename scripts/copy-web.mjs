#!/usr/bin/env node
// Build step after tsc: the dashboard's static files (src/serve/web) go next to the compiled
// server (dist/serve/web), which reads them into memory at start. No bundler: they are plain
// files with no dependencies.
import { cpSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const src = fileURLToPath(new URL('../src/serve/web/', import.meta.url));
const dst = fileURLToPath(new URL('../dist/serve/web/', import.meta.url));
mkdirSync(dst, { recursive: true });
cpSync(src, dst, { recursive: true });
