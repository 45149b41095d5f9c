// A wall-clock step (NTP, `date -s`) while the agent and serve run: their intervals, rates,
// cooldowns and caches run on the monotonic clock, so a step of an hour either way changes
// nothing. Date.now and performance.now are both faked here: the wall clock jumps, the
// monotonic one moves with the agent's (fake) sleeps.
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { afterEach, describe, it, mock } from 'node:test';
import { openSystem } from '../../../src/actuate/system.js';
import { DEFAULT_AGENT } from '../../../src/agent/config.js';
import { runAgent } from '../../../src/agent/run.js';
import { recentScrape } from '../../../src/serve/app.js';
import type { Scrape, Scraper } from '../../../src/serve/scrape.js';
import { busy, eachWithFakeMachine, fakeClock, type FakeMachine } from './tree.js';

const HOUR = 3_600_000;
let m: FakeMachine;
let stateDir: string;
eachWithFakeMachine((machine, dir) => {
  m = machine;
  stateDir = dir;
});
afterEach(() => mock.restoreAll());

/** Fakes both clocks; returns a function that moves them (the wall clock by `ms + step`). */
function clocks() {
  let wall = Date.UTC(2026, 0, 1);
  let mono = 1000;
  mock.method(Date, 'now', () => wall);
  mock.method(performance, 'now', () => mono);
  return (ms: number, step = 0) => {
    mono += ms;
    wall += ms + step;
  };
}

describe('a wall-clock step while the agent runs', () => {
  for (const [name, step] of [
    ['back', -HOUR],
    ['forward', HOUR],
  ] as const) {
    it(`an hour ${name} between the baseline and the next pass: the busy process's CPU rate is measured and it is acted on`, async () => {
      m.add(busy(200, 'spin', 400, 1, 0));
      const advance = clocks();
      const signals = new EventEmitter();
      const lines: string[] = [];
      let sleeps = 0;
      const done = runAgent(
        { ...DEFAULT_AGENT, stateDir, intervalMs: 5000 },
        {
          root: m.root,
          sys: openSystem(m.root, { isRoot: true }),
          ops: m.ops,
          log: (l) => void lines.push(l),
          signals,
          pageSize: 4096,
          selfPid: 99999,
          clock: fakeClock(),
          sleep: async (ms) => {
            advance(ms, sleeps === 0 ? step : 0);
            m.tick(ms / 1000);
            if (++sleeps === 2) signals.emit('SIGTERM');
            await new Promise((r) => setImmediate(r));
          },
        },
      );
      assert.equal(await done, 0);
      assert.match(lines.join('\n'), /moved pid 200 \(spin\)/, lines.join('\n'));
    });
  }
});

describe("a wall-clock step while serve's dashboard polls", () => {
  it('an hour back: /api/live and /api/topology still take a fresh scrape after a second', () => {
    const advance = clocks();
    let scrapes = 0;
    const scrape = () => {
      scrapes++;
      return { at: Date.now() } as unknown as Scrape;
    };
    const scraper = { scrape } as unknown as Scraper;
    const recent = recentScrape(scraper, 1000);
    recent();
    advance(500);
    recent();
    assert.equal(scrapes, 1, 'one scrape serves a second of polls');
    advance(1500, -HOUR);
    recent();
    assert.equal(scrapes, 2, 'a fresh scrape after the step');
    advance(1500);
    recent();
    assert.equal(scrapes, 3);
  });
});
