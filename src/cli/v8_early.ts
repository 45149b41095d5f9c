// Evaluated before any other module of the executable (bin.ts imports it first): V8 flags that
// must be set before the heap grows (src/agent/v8_flags.ts says which and why).
import { setFlagsFromString } from 'node:v8';
import { v8FlagsFor } from '../agent/v8_flags.js';

for (const flag of v8FlagsFor(process.argv.slice(2))) setFlagsFromString(flag);
