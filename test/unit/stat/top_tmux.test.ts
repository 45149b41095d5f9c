// numakit top driven the way a person drives it: in tmux (send-keys, capture-pane), every key
// of the view on the four-node fixture (copied, with a cgroup file added for the filter). Runs
// the built CLI (npm test builds first); skips naming tmux when it is not installed.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FIXTURES } from './helpers.js';

const BIN = new URL('../../../dist/cli/bin.js', import.meta.url).pathname;
const TMUX = spawnSync('tmux', ['-V']).error === undefined;
const SOCKET = `numakit-top-test-${process.pid}`;
const tmux = (...args: string[]) => spawnSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8' });
const screen = () => tmux('capture-pane', '-p', '-t', 'top').stdout;
const pane = (fmt: string) => tmux('display-message', '-p', '-t', 'top', fmt).stdout.trim();

async function waitFor(test: (s: string) => boolean, what: string): Promise<string> {
  let s = '';
  for (let i = 0; i < 150; i++) {
    s = screen();
    if (test(s)) return s;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`never saw ${what} on the screen:\n${s}`);
}
const sees = (text: string) => waitFor((s) => s.includes(text), JSON.stringify(text));
const keys = (...k: string[]) => tmux('send-keys', '-t', 'top', ...k);
/** The pids of the process rows, top to bottom. */
const rows = (s: string) => [...s.matchAll(/^[ >] *(\d+) [^\s[]/gm)].map((m) => Number(m[1]));

describe('numakit top in tmux', { skip: !TMUX ? 'tmux is not installed' : !existsSync(BIN) && 'needs a build' }, () => {
  before(() => {
    const root = mkdtempSync(join(tmpdir(), 'numakit-top-tmux-'));
    cpSync(join(FIXTURES, 'four-node'), root, { recursive: true });
    writeFileSync(join(root, 'proc/1302/cgroup'), '0::/user.slice/batch.service\n');
    // java's NUMA-balancing faults (2 of its threads): 30 of 40 faults on the node each runs on.
    const sched = (node: number, f0: number, f1: number) =>
      `current_node=${node}, numa_group_id=0\nnuma_faults node=0 task_private=${f0} task_shared=0 group_private=0 group_shared=0\nnuma_faults node=1 task_private=${f1} task_shared=0 group_private=0 group_shared=0\n`;
    writeFileSync(join(root, 'proc/1302/task/1310/sched'), sched(1, 5, 15));
    writeFileSync(join(root, 'proc/1302/task/1311/sched'), sched(0, 15, 5));
    // After top exits, the shell prints the terminal mode (cooked again: icanon) and keeps the pane.
    const cmd = `${process.execPath} ${BIN} --root ${root} top --interval 0.5; echo "exit $?"; stty -a | grep -o -- '-\\?icanon'; sleep 60`;
    const r = tmux('new-session', '-d', '-s', 'top', '-x', '120', '-y', '30', cmd);
    assert.equal(r.status, 0, r.stderr);
  });
  after(() => tmux('kill-server'));

  it('draws the list, sorted by remote memory, on the alternate screen', async () => {
    const s = await sees('hugeapp');
    assert.match(s, /^sort: remote memory   \?: help  q: quit$/m);
    assert.match(s, /LOCALITY ACCESS/);
    assert.match(s, /^ +1302 java .* 0\.25 +0\.75 /m, 'java: placement 0.25, accesses 0.75 local');
    assert.equal(pane('#{alternate_on}'), '1');
    assert.match(s, /^>\s*\d+ /m, 'the first row is selected');
  });

  it('? shows the keys and hides them again', async () => {
    keys('?');
    await sees('numakit top: keys');
    keys('?');
    await waitFor((s) => !s.includes('numakit top: keys') && s.includes('hugeapp'), 'the list again');
  });

  it('r, c, l and m change the sort', async () => {
    for (const [k, label] of [
      ['r', 'memory'],
      ['c', 'CPU'],
      ['l', 'locality'],
      ['m', 'remote memory'],
    ] as const) {
      keys(k);
      await sees(`sort: ${label}   `);
    }
    keys('r');
    const s = await sees('sort: memory   ');
    assert.equal(rows(s)[0], 1403, `the largest resident process first:\n${s}`);
    keys('m');
  });

  it('/ filters by name, by pid and by cgroup; Esc clears the filter', async () => {
    keys('/', 'j', 'a', 'v', 'a');
    await sees('filter: java_');
    keys('Enter');
    let s = await sees("filter 'java'");
    assert.deepEqual(rows(s), [1302]);
    keys('Escape');
    s = await waitFor((x) => rows(x).length > 2, 'every process again');
    keys('/', '1', '2', '0', '1', 'Enter');
    s = await sees("filter '1201'");
    assert.deepEqual(rows(s), [1201]);
    keys('/', 'b', 'a', 't', 'c', 'h', '.', 's', 'e', 'r', 'v', 'i', 'c', 'e', 'Enter');
    s = await sees("filter 'batch.service'");
    assert.deepEqual(rows(s), [1302]);
  });

  it('Enter drills into the selected process (threads with CPU and node, memory per node by mapping); Esc goes back', async () => {
    keys('Enter');
    const s = await sees('process 1302 (java)');
    assert.match(s, /cgroup \/user\.slice\/batch\.service {2}4 thread\(s\)/);
    assert.match(s, /^access locality 0\.75 \(NUMA-balancing faults by node of the memory: 0:20 1:20\)$/m);
    for (const tid of [1302, 1310, 1311, 1312]) assert.match(s, new RegExp(`^ +${tid} \\S+ +\\S +\\d+ +[\\d?]+ `, 'm'));
    assert.match(s, /^MAPPING .*PER NODE/m);
    assert.match(s, /^[0-9a-f]+ +\d/m, 'at least one mapping with its memory');
    keys('Escape');
    // The drill-down's header shows the filter too: wait for the drill-down to be gone.
    await waitFor((x) => x.includes("filter 'batch.service'") && !x.includes('Esc: back'), 'the filtered list');
    keys('Escape', 'j');
    // Thread rows look like process rows: the list is back when the drill-down is gone.
    const list = await waitFor((x) => rows(x).length > 2 && !x.includes('Esc: back'), 'every process again');
    assert.match(list, /^>\s*\d+ /m);
    assert.equal(list.match(/^>/gm)?.length, 1, 'one selected row');
  });

  it('q quits and gives the terminal back: main screen, cursor shown, cooked mode', async () => {
    keys('q');
    // The shell prints the exit status, then stty's mode: both, not the first alone.
    const s = await waitFor((x) => x.includes('exit 0') && /^-?icanon$/m.test(x), 'exit 0 and the terminal mode');
    assert.match(s, /^icanon$/m);
    assert.doesNotMatch(s, /hugeapp/);
    assert.equal(pane('#{alternate_on}'), '0');
    assert.equal(pane('#{cursor_flag}'), '1');
  });
});

describe('numakit top in tmux: a resized terminal', {
  skip: !TMUX ? 'tmux is not installed' : !existsSync(BIN) && 'needs a build',
}, () => {
  const socket = `${SOCKET}-resize`;
  const t = (...args: string[]) => spawnSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
  after(() => t('kill-server'));

  it('is drawn again at once at its new size, not at the next interval', async () => {
    const root = mkdtempSync(join(tmpdir(), 'numakit-top-resize-'));
    cpSync(join(FIXTURES, 'four-node'), root, { recursive: true });
    // Eight lines hold the nodes but not the process list; the interval (60 s) outlasts the test.
    const r = t(
      'new-session',
      '-d',
      '-s',
      'top',
      '-x',
      '120',
      '-y',
      '8',
      `${process.execPath} ${BIN} --root ${root} top --interval 60; sleep 60`,
    );
    assert.equal(r.status, 0, r.stderr);
    const look = () => t('capture-pane', '-p', '-t', 'top').stdout;
    const until = async (test: (s: string) => boolean) => {
      for (let i = 0; i < 100 && !test(look()); i++) await new Promise((res) => setTimeout(res, 100));
      return look();
    };
    const small = await until((s) => s.includes('USED/TOTAL'));
    assert.doesNotMatch(small, /hugeapp/);
    t('resize-window', '-t', 'top', '-x', '120', '-y', '30');
    assert.match(await until((s) => s.includes('hugeapp')), /hugeapp/);
  });
});
