// Regenerates the synthetic examples: node --import tsx scripts/make-examples.ts [NAME...]
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeSynthMachine } from '../test/fixtures/synth.js';
import { EXAMPLE_SPECS } from './examples/specs.js';

const names = process.argv.slice(2).length > 0 ? process.argv.slice(2) : Object.keys(EXAMPLE_SPECS);
for (const name of names) {
  const ex = EXAMPLE_SPECS[name];
  if (!ex) throw new Error(`no example spec '${name}'`);
  const dir = join('examples', name);
  writeSynthMachine(dir, ex.spec);
  const manifest = {
    name,
    description: ex.description,
    synthetic: true,
    source: 'synthetic: written by scripts/make-examples.ts from scripts/examples/specs.ts',
    basis: ex.basis,
  };
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
  console.log(`wrote ${dir}`);
}
