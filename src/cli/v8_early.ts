// Evaluated before any other module of the executable (bin.ts imports it first): V8 flags that
// must be set before the heap grows (src/runtime/v8_flags.ts says which and why). node:v8 is
// loaded only when there is a flag to set: it pulls in Node's stream modules (internal/heap_utils),
// which every other command, `run` most of all, would pay for at each start (docs/startup.md).
import { setV8Flags, v8FlagsFor } from '../runtime/v8_flags.js';

const flags = v8FlagsFor(process.argv.slice(2));
if (flags.length > 0) setV8Flags(flags);
