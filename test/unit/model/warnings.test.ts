import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_KEPT, Warnings } from '../../../src/model/warnings.js';

const w = (pid: number) => ({ path: `proc/${pid}/numa_maps`, line: 3, problem: "not a numa_maps line: 'x'" });

describe('the read-warnings log', () => {
  it('announces each distinct warning once', () => {
    const said: string[] = [];
    const log = new Warnings((x) => said.push(x.path));
    log.add(w(1));
    log.add(w(1));
    log.add({ ...w(1), line: 4 });
    assert.deepEqual(said, ['proc/1/numa_maps', 'proc/1/numa_maps']);
    assert.equal(log.size, 2);
    assert.equal(log.announced, 2);
  });

  it("keeps at most its bound for a daemon's life: the oldest goes, and is said again if it comes back", () => {
    let said = 0;
    const log = new Warnings(() => said++);
    for (let pid = 0; pid < MAX_KEPT + 1000; pid++) log.add(w(pid));
    assert.equal(log.size, MAX_KEPT);
    assert.equal(log.announced, MAX_KEPT + 1000);
    assert.equal(said, MAX_KEPT + 1000);
    assert.equal(log.list()[0]!.path, 'proc/1000/numa_maps', 'the newest are kept');
    log.add(w(MAX_KEPT + 999));
    assert.equal(said, MAX_KEPT + 1000, 'a kept one is not said again');
    log.add(w(0));
    assert.equal(said, MAX_KEPT + 1001, 'a dropped one is said again');
    assert.equal(log.size, MAX_KEPT);
  });
});
