// fast-check generators built from the grammar of each kernel file numakit parses: valid texts
// (what kernels print), boundary values (0, 2^32, 2^53 +- 1, 2^64, the kernel's id limits) and
// hostile ones (a valid text truncated, with NULs, CRLF, random bytes, huge or negative numbers
// spliced in, lines duplicated, or bytes with no grammar at all).
import fc from 'fast-check';

const BOUNDARY = [
  '0',
  '1',
  '7',
  '255',
  '256',
  '1023',
  '1024',
  '4095',
  '8191',
  '8192',
  '65535',
  '4294967295',
  '4294967296',
  '9007199254740991',
  '9007199254740992',
  '9007199254740993',
  '18446744073709551615',
  '18446744073709551616',
  '99999999999999999999999999999999999',
  '-1',
  '-0',
  '007',
  '1e35',
  '0x10',
  '',
];

/** A decimal as kernels print it, mostly small, sometimes a boundary or a very long one. */
export const num: fc.Arbitrary<string> = fc.oneof(
  { weight: 8, arbitrary: fc.nat(300).map(String) },
  { weight: 2, arbitrary: fc.nat(1 << 20).map(String) },
  { weight: 2, arbitrary: fc.constantFrom(...BOUNDARY) },
  { weight: 1, arbitrary: fc.bigInt({ min: 0n, max: 2n ** 96n }).map(String) },
);

const small = fc.nat(64).map(String);
const word = fc.stringMatching(/^[a-z_][a-z0-9_]{0,12}$/);
const hexWord = fc.stringMatching(/^[0-9a-f]{1,8}$/);
const line = (parts: fc.Arbitrary<string>[]) => fc.tuple(...parts).map((p) => p.join(''));
const lines = (one: fc.Arbitrary<string>, max = 12) =>
  fc.array(one, { maxLength: max }).map((ls) => ls.join('\n') + (ls.length > 0 ? '\n' : ''));
const sp = fc.constantFrom(' ', '  ', '\t', ' \t ');

type Mutation = 'truncate' | 'insert' | 'nul' | 'crlf' | 'dupline' | 'huge' | 'negative' | 'empty' | 'drop';
const MUTATIONS: Mutation[] = ['truncate', 'insert', 'nul', 'crlf', 'dupline', 'huge', 'negative', 'empty', 'drop'];

function mutate(t: string, at: number, m: Mutation, junk: string): string {
  const i = t.length === 0 ? 0 : at % (t.length + 1);
  switch (m) {
    case 'truncate':
      return t.slice(0, i);
    case 'insert':
      return t.slice(0, i) + junk + t.slice(i);
    case 'nul':
      return `${t}\0`.repeat(1 + (at % 2));
    case 'crlf':
      return t.replace(/\n/g, '\r\n');
    case 'dupline': {
      const ls = t.split('\n');
      const k = at % Math.max(1, ls.length);
      return [...ls.slice(0, k + 1), ls[k]!, ...ls.slice(k + 1)].join('\n');
    }
    case 'huge':
      return t.replace(/\d+/, '18446744073709551616');
    case 'negative':
      return t.replace(/(^|\s)(\d)/, '$1-$2');
    case 'empty':
      return '';
    case 'drop':
      return t
        .split('\n')
        .filter((_, k) => k !== at % 4)
        .join('\n');
  }
}

/** A valid text with one hostile change. */
export function hostile(valid: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc
    .tuple(valid, fc.nat(), fc.constantFrom(...MUTATIONS), fc.string({ unit: 'binary', maxLength: 6 }))
    .map(([t, at, m, junk]) => mutate(t, at, m, junk));
}

/** What a parser must survive: valid, hostile and grammar-free inputs. */
export function inputs(valid: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 5, arbitrary: valid },
    { weight: 4, arbitrary: hostile(valid) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 120 }) },
  );
}

const ending = fc.constantFrom('\n', '', '\n\0', ' \n', '\r\n');

// --- lists, masks, integers -------------------------------------------------------------------

const listPart = fc.oneof(
  num,
  line([num, fc.constant('-'), num]),
  line([small, fc.constant('-'), small, fc.constant(':'), fc.constantFrom('1', '2', '3', '0')]),
);
export const cpuList = line([fc.array(listPart, { maxLength: 6 }).map((p) => p.join(',')), ending]);
export const cpuMask = line([
  fc
    .array(fc.oneof(hexWord, fc.constant('ffffffff'), fc.constant('00000000')), { minLength: 1, maxLength: 12 })
    .map((w) => w.join(',')),
  ending,
]);
export const integer = line([fc.constantFrom('', '-', '+'), num, ending]);
export const bracketed = fc
  .array(word, { minLength: 1, maxLength: 5 })
  .chain((ws) => fc.nat(ws.length - 1).map((k) => ws.map((w, i) => (i === k ? `[${w}]` : w)).join(' ') + '\n'));
export const governor = line([
  fc.oneof(fc.constantFrom('performance', 'powersave', 'schedutil', 'ondemand'), word),
  ending,
]);
export const distance = line([
  fc.array(fc.oneof(fc.constantFrom('10', '20', '21', '32', '255'), num), { maxLength: 8 }).map((d) => d.join(' ')),
  ending,
]);
export const cacheSize = line([num, fc.constantFrom('K', 'M', 'G', ''), ending]);
export const hostname = line([fc.stringMatching(/^[a-z0-9][a-z0-9.-]{0,40}$/), ending]);
export const tunedProfile = line([
  fc.array(fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/), { maxLength: 3 }).map((p) => p.join(' ')),
  ending,
]);
export const cmdline = fc
  .array(fc.stringMatching(/^[a-z/=.-]{0,12}$/), { maxLength: 6 })
  .map((a) => a.join('\0') + '\0');

// --- "name value" and "Key: value kB" files ---------------------------------------------------

const meminfoKey = fc.oneof(
  fc.constantFrom(
    'MemTotal',
    'MemFree',
    'MemUsed',
    'Active(anon)',
    'HugePages_Total',
    'SwapTotal',
    'SwapFree',
    'Hugepagesize',
  ),
  word,
);
const meminfoLine = line([meminfoKey, fc.constant(':'), sp, num, fc.constantFrom(' kB', '')]);
export const meminfo = lines(meminfoLine, 16);
export const nodeMeminfo = fc
  .tuple(small, fc.array(meminfoLine, { maxLength: 16 }))
  .map(([n, ls]) => ls.map((l) => `Node ${n} ${l}`).join('\n') + '\n');
export const memTotal = fc.tuple(num, meminfo).map(([v, rest]) => `MemTotal:       ${v} kB\n${rest}`);
export const swap = fc.tuple(num, num, meminfo).map(([t, f, rest]) => `SwapTotal: ${t} kB\nSwapFree: ${f} kB\n${rest}`);
export const counters = lines(
  line([
    fc.oneof(fc.constantFrom('numa_hit', 'numa_miss', 'local_node', 'nr_free_pages'), word),
    sp,
    fc.constantFrom('', '-'),
    num,
  ]),
);
export const cpuinfo = lines(
  fc.oneof(
    line([fc.constant('flags\t\t: fpu vme'), fc.constantFrom(' hypervisor', '', ' hypervisorx')]),
    line([word, fc.constant('\t: '), num]),
  ),
);

// --- /proc files ------------------------------------------------------------------------------

export const interrupts = fc.integer({ min: 1, max: 6 }).chain((ncpu) => {
  const header = fc.constant(' '.repeat(11) + Array.from({ length: ncpu }, (_, c) => `CPU${c}`.padStart(11)).join(''));
  const row = line([
    fc.constantFrom('  ', ' '),
    fc.oneof(num, fc.constantFrom('NMI', 'LOC', 'ERR')),
    fc.constant(':'),
    fc.array(num, { minLength: ncpu, maxLength: ncpu }).map((c) => c.map((x) => x.padStart(11)).join('')),
    fc.constantFrom('  IR-PCI-MSI 524288-edge nvme0q0', '', '  Non-maskable interrupts'),
  ]);
  return fc.tuple(header, fc.array(row, { maxLength: 8 })).map(([h, rs]) => [h, ...rs].join('\n') + '\n');
});
export const irqbalanceConfig = lines(
  fc.oneof(
    line([fc.constant('IRQBALANCE_ARGS="--banirq='), num, fc.constant(' -i '), num, fc.constant('"')]),
    line([fc.constant('IRQBALANCE_BANNED_CPULIST='), cpuList.map((l) => l.trim())]),
    line([fc.constant('IRQBALANCE_BANNED_CPUS='), cpuMask.map((m) => m.trim())]),
    line([fc.constant('# '), word]),
  ),
);
export const procCgroup = lines(
  fc.oneof(
    line([fc.constant('0::/'), fc.array(word, { maxLength: 4 }).map((w) => w.join('/'))]),
    line([num, fc.constant(':'), fc.constantFrom('cpuset', 'cpu,cpuacct', 'memory', ''), fc.constant(':/'), word]),
  ),
  4,
);
export const loadavg = line([
  fc
    .array(line([small, fc.constant('.'), fc.nat(99).map((n) => String(n).padStart(2, '0'))]), {
      minLength: 3,
      maxLength: 3,
    })
    .map((l) => l.join(' ')),
  fc.constant(' 2/1195 '),
  num,
  ending,
]);
export const procStat = lines(
  line([
    fc.oneof(fc.constant('cpu '), line([fc.constant('cpu'), num])),
    fc.array(num, { minLength: 0, maxLength: 10 }).map((v) => ' ' + v.join(' ')),
  ]),
  6,
);
export const statm = line([fc.array(num, { minLength: 0, maxLength: 8 }).map((v) => v.join(' ')), ending]);
const statusLine = fc.oneof(
  line([fc.constant('Name:\t'), word]),
  line([fc.constant('State:\t'), fc.constantFrom('S (sleeping)', 'R (running)', 'Z (zombie)', '')]),
  line([fc.constant('Threads:\t'), num]),
  line([fc.constant('VmRSS:\t'), num, fc.constant(' kB')]),
  line([fc.constant('HugetlbPages:\t'), num, fc.constant(' kB')]),
  line([fc.constantFrom('Cpus_allowed_list:\t', 'Mems_allowed_list:\t'), cpuList.map((l) => l.trim())]),
);
export const procStatus = fc
  .tuple(word, fc.array(statusLine, { maxLength: 8 }))
  .map(([n, ls]) => [`Name:\t${n}`, 'State:\tS (sleeping)', ...ls].join('\n') + '\n');
export const taskStat = fc
  .tuple(num, fc.string({ maxLength: 16 }), fc.array(num, { minLength: 30, maxLength: 52 }))
  .map(([pid, comm, f]) => `${pid} (${comm}) S ${f.join(' ')}\n`);
const address = fc.stringMatching(/^[0-9a-f]{1,16}$/);
const numaWord = fc.oneof(
  line([fc.constant('N'), fc.oneof(small, num), fc.constant('='), num]),
  line([fc.constant('kernelpagesize_kB='), fc.constantFrom('4', '64', '2048', '1048576', '0', '99999999999')]),
  fc.constantFrom('anon=12', 'dirty=3', 'heap', 'stack', 'huge', 'file=/usr/lib/libc.so.6', 'mapped=4', 'active=0'),
);
const numaLine = line([
  address,
  fc.constant(' '),
  fc.constantFrom(
    'default',
    'bind:0-1',
    'interleave:0-3',
    'prefer:1',
    'weighted interleave:0-1',
    'prefer (many):0,2',
    'local',
  ),
  fc.array(numaWord, { maxLength: 8 }).map((w) => (w.length > 0 ? ' ' : '') + w.join(' ')),
]);
export const numaMaps = lines(numaLine, 10);
const smapsHead = line([
  address,
  fc.constant('-'),
  address,
  fc.constant(' rw-p 00000000 00:00 0 '),
  fc.constantFrom('', '[heap]', '/usr/lib/x.so'),
]);
const smapsField = line([
  fc.constantFrom('Rss', 'Size', 'AnonHugePages', 'Pss'),
  fc.constant(':'),
  sp,
  num,
  fc.constant(' kB'),
]);
export const smaps = lines(fc.oneof(smapsHead, smapsField, fc.constant('VmFlags: rd wr mr')), 16);

// --- snapshot archives ------------------------------------------------------------------------

export interface TarEntry {
  readonly path: string;
  /** ustar type flag: '0' file, '5' directory, '2' symlink, '1' hard link, '3'/'4' devices, '6' FIFO. */
  readonly type: string;
  readonly data: string;
  readonly linkpath: string;
  /** The size the header claims (a "size bomb" claims more than it holds). */
  readonly claimed: number | null;
}

const tarPath = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .array(fc.constantFrom('sys', 'proc', 'devices', 'node', 'node0', 'cpu0', 'meminfo', 'x'), {
        minLength: 1,
        maxLength: 5,
      })
      .map((p) => p.join('/')),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '../escape',
      '../../etc/passwd',
      '/etc/passwd',
      'sys/../../x',
      './sys/./x',
      'a//b',
      '.',
      '..',
    ),
  },
  { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 40 }) },
);
const tarEntry: fc.Arbitrary<TarEntry> = fc.record({
  path: tarPath,
  type: fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom('0', '5', '2') },
    { weight: 1, arbitrary: fc.constantFrom('1', '3', '4', '6', '7', 'x') },
  ),
  data: fc.oneof(fc.string({ maxLength: 40 }), cpuList),
  linkpath: fc.oneof(fc.constantFrom('/etc/shadow', '../../../../etc', '/dev/zero', 'meminfo', '../node0'), tarPath),
  claimed: fc.option(fc.constantFrom(5 * 2 ** 20, 2 ** 33, 0, 1), { freq: 8 }),
});
export const tarEntries = fc.array(tarEntry, { maxLength: 8 });
/** How the archive's bytes are spoiled after it is packed: none, truncated, a byte flipped. */
export const tarDamage = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ kind: 'none' as const, at: 0 }) },
  { weight: 2, arbitrary: fc.nat().map((at) => ({ kind: 'truncate' as const, at })) },
  { weight: 1, arbitrary: fc.nat().map((at) => ({ kind: 'flip' as const, at })) },
);
