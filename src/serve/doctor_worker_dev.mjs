// Development entry of the doctor worker: when numakit runs from its .ts sources (tsx, tests),
// a worker must register tsx itself (Node 20 workers do not inherit --import hooks). The built
// package starts dist/serve/doctor_worker.js directly.
import { register } from 'tsx/esm/api';

register();
await import('./doctor_worker.ts');
