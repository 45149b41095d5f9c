// agent --advise --once on a snapshot: its processes' CPU time never moves between two readings,
// so the agent can propose nothing; it says so and where the same processes' placement is seen,
// instead of printing only "ready".
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runMain } from '../../helpers/cli.js';

test('agent --advise --once on an example says why it proposes nothing and where to look', async () => {
  const r = await runMain(['--example', 'lab-2node-procs', 'agent', '--advise', '--once', '--interval', '100ms']);
  assert.equal(r.code, 0, r.err);
  const [first] = r.out.split('\n');
  assert.equal(
    first,
    "numakit agent: example lab-2node-procs is a snapshot: its processes' CPU time does not move between two readings, so none is busy (--min-cpu 0.2) and the agent proposes nothing; their placement, with CPU time since each started: numakit --example lab-2node-procs stat --procs, and numakit --example lab-2node-procs doctor",
  );
  assert.match(r.out, /^numakit agent ready: .*advise only$/m);
  const json = await runMain([
    '--example',
    'lab-2node-procs',
    'agent',
    '--advise',
    '--once',
    '--interval',
    '100ms',
    '--log-format',
    'json',
  ]);
  const event = JSON.parse(json.out.split('\n')[0]!) as { event: string; note: string };
  assert.equal(event.event, 'snapshot');
  assert.match(event.note, /^example lab-2node-procs is a snapshot/);
  const ready = JSON.parse(json.out.split('\n').find((l) => l.includes('"event":"ready"'))!) as Record<string, unknown>;
  assert.deepEqual(Object.keys(ready), [
    ...['time', 'event', 'pid', 'intervalSeconds', 'maxIntervalSeconds'],
    ...['watchSeconds', 'tune', 'strategy', 'advise', 'metrics'],
  ]);
  assert.deepEqual(
    { ...ready, time: undefined, pid: undefined },
    { ...ready, time: undefined, pid: undefined, event: 'ready', intervalSeconds: 0.1, watchSeconds: 0, advise: true },
  );
});
