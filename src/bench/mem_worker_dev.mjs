// Development entry of the kernel worker: when numakit runs from its .ts sources (tsx, tests),
// a worker must register tsx itself (Node 20 workers do not inherit --import hooks). The built
// package starts dist/bench/mem_worker.js directly.
import { register } from 'tsx/esm/api';

register();
await import('./mem_worker.ts');
