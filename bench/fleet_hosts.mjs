// Synthetic fleets for numakit fleet report: N hosts' snapshot archives made from the shipped
// examples with variations (host names, memory a little off per host, a few hosts with another
// THP, swappiness or kernel, one in 97 with half a node's memory gone). Used by
// bench/fleet-report.mjs and the fleet unit tests. Archives are written with the tar package's
// Header, straight from memory (writing 1,000-file trees to disk first would take minutes).
import { lstatSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { Header } from 'tar';

const EXAMPLES = new URL('../examples/', import.meta.url).pathname;

/** Which example each host is made from: a Spark fleet with a few other machines in it. */
export const MIX = [
  ['spark-2s', 60],
  ['epyc-nps4', 15],
  ['vm-flat-32', 10],
  ['cxl-3node', 10],
  ['lab-4node-asym', 5],
];

function load(name) {
  const entries = [];
  const walk = (rel) => {
    for (const n of readdirSync(join(EXAMPLES, name, rel)).sort()) {
      const r = rel === '' ? n : `${rel}/${n}`;
      const st = lstatSync(join(EXAMPLES, name, r));
      if (st.isSymbolicLink())
        entries.push({ path: r, type: 'SymbolicLink', linkpath: readlinkSync(join(EXAMPLES, name, r)) });
      else if (st.isDirectory()) {
        entries.push({ path: `${r}/`, type: 'Directory' });
        walk(r);
      } else entries.push({ path: r, type: 'File', body: readFileSync(join(EXAMPLES, name, r)) });
    }
  };
  walk('');
  return entries;
}

function block(h) {
  const b = Buffer.alloc(512);
  new Header(h).encode(b, 0);
  return b;
}

function archive(entries) {
  const parts = [];
  for (const e of entries) {
    const size = e.body?.length ?? 0;
    parts.push(
      block({
        path: e.path,
        type: e.type,
        linkpath: e.linkpath,
        size,
        mode: e.type === 'Directory' ? 0o755 : 0o644,
        mtime: new Date(0),
      }),
    );
    if (size > 0) parts.push(e.body, Buffer.alloc((512 - (size % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(parts), { level: 6 });
}

/** A deterministic small number in [0, n) for host i and a salt. */
const pick = (i, salt, n) => (((i + 1) * 2654435761 + salt * 40503) % 4294967296) % n;

function vary(entries, i, name) {
  const host = `${name.replace(/-.*/, '')}-${String(i).padStart(4, '0')}`;
  const out = entries.map((e) => {
    if (e.type !== 'File') return e;
    let text = null;
    if (/^sys\/devices\/system\/node\/node\d+\/meminfo$/.test(e.path)) {
      const halve = pick(i, 1, 97) === 0 && e.path.includes('node1/');
      const f = halve ? 0.5 : 1 + (pick(i, 2, 200) - 100) / 10000;
      text = e.body.toString().replace(/(MemTotal:\s+)(\d+)/, (_, a, kb) => `${a}${Math.round(Number(kb) * f)}`);
    } else if (e.path === 'sys/kernel/mm/transparent_hugepage/enabled') {
      text = pick(i, 3, 250) === 0 ? '[always] madvise never\n' : 'always madvise [never]\n';
    } else if (e.path === 'proc/sys/vm/swappiness') {
      text = pick(i, 4, 50) === 0 ? '60\n' : '10\n';
    } else if (e.path === 'proc/sys/kernel/osrelease') {
      text = pick(i, 5, 20) === 0 ? '6.1.0-21-amd64\n' : '6.1.0-28-amd64\n';
    }
    return text === null ? e : { ...e, body: Buffer.from(text) };
  });
  out.push({ path: 'proc/sys/kernel/hostname', type: 'File', body: Buffer.from(`${host}\n`) });
  return { host, entries: out };
}

/** Writes `count` snapshot archives into `dir`; returns their host names in order. */
export function writeSyntheticFleet(dir, count) {
  const cache = new Map();
  const total = MIX.reduce((a, [, w]) => a + w, 0);
  const hosts = [];
  for (let i = 0; i < count; i++) {
    let r = pick(i, 0, total);
    const [name] = MIX.find(([, w]) => (r -= w) < 0);
    if (!cache.has(name)) cache.set(name, load(name));
    const { host, entries } = vary(cache.get(name), i, name);
    writeFileSync(join(dir, `${host}.tar.gz`), archive(entries));
    hosts.push(host);
  }
  return hosts;
}
