#!/usr/bin/env node
// Lists the functions in src/ longer than a number of lines, longest first, with counts over 40,
// 60 and 80 lines. A function's length is the lines from its first token to its closing brace,
// nested functions included (each nested one is also counted on its own). Parsed with the
// TypeScript compiler's own AST (typescript/unstable/sync talks to the native tsc over a pipe).
//   node scripts/long-functions.mjs [--over N] [--under DIR] [--json]   (defaults: 40, src)
// --json prints the functions over N as one JSON array of {file, line, name, lines} (the
// long-functions ratchet test reads it).
import { resolve } from 'node:path';
import { API } from 'typescript/unstable/sync';
import { SyntaxKind } from 'typescript/unstable/ast';

const FUNCTION_KINDS = new Set([
  SyntaxKind.FunctionDeclaration,
  SyntaxKind.FunctionExpression,
  SyntaxKind.ArrowFunction,
  SyntaxKind.MethodDeclaration,
  SyntaxKind.Constructor,
  SyntaxKind.GetAccessor,
  SyntaxKind.SetAccessor,
]);

function option(name, fallback) {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : process.argv[at + 1];
}

function lineOf(text, offset) {
  let line = 1;
  for (let i = 0; i < offset; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** The name a reader would search for: the declaration's own, or the variable/property holding it. */
function nameOf(node) {
  if (node.name?.text) return node.name.text;
  if (node.kind === SyntaxKind.Constructor) return 'constructor';
  const holder = node.parent;
  if (holder?.name?.text) return holder.name.text;
  return '<anonymous>';
}

function functionsIn(sourceFile) {
  const found = [];
  const visit = (node) => {
    if (FUNCTION_KINDS.has(node.kind) && node.body) {
      const text = sourceFile.text;
      const first = lineOf(text, node.getStart(sourceFile));
      const last = lineOf(text, node.end);
      found.push({ name: nameOf(node), line: first, lines: last - first + 1 });
    }
    node.forEachChild(visit);
  };
  sourceFile.forEachChild(visit);
  return found;
}

const over = Number(option('--over', '40'));
const under = resolve(option('--under', 'src'));
const api = new API({ cwd: process.cwd() });
try {
  const snapshot = api.updateSnapshot({ openProjects: [resolve('tsconfig.json')] });
  const program = snapshot.getProjects()[0].program;
  const rows = [];
  for (const file of program.getSourceFileNames()) {
    if (!file.startsWith(`${under}/`)) continue;
    const relative = file.slice(process.cwd().length + 1);
    for (const fn of functionsIn(program.getSourceFile(file))) rows.push({ file: relative, ...fn });
  }
  rows.sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file));
  if (process.argv.includes('--json')) console.log(JSON.stringify(rows.filter((r) => r.lines > over)));
  else {
    for (const r of rows.filter((r) => r.lines > over)) console.log(`${r.lines}\t${r.file}:${r.line}\t${r.name}`);
    const count = (n) => rows.filter((r) => r.lines > n).length;
    console.log(`functions: ${rows.length}; over 40 lines: ${count(40)}; over 60: ${count(60)}; over 80: ${count(80)}`);
  }
} finally {
  api.close();
}
