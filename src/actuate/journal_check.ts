// The shape of a journal file, checked field by field before any code trusts it: a file that
// was cut short, edited by hand or written by another program is "corrupt" with the first
// problem named (entries[3].state: ...), never a TypeError half way through a rollback.
/** null when fine, else the failing field's path ("entries[3].state", "" for the value itself) and why. */
type Failure = readonly [path: string, why: string];
type Leaf = (v: unknown) => string | null;
type Check = (v: unknown) => Failure | null;

const leaf =
  (f: Leaf): Check =>
  (v) => {
    const why = f(v);
    return why === null ? null : ['', why];
  };

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = leaf((v) => (typeof v === 'string' ? null : 'expected a string'));
const strOrNull = leaf((v) => (v === null || typeof v === 'string' ? null : 'expected a string or null'));
const int = leaf((v) => (Number.isSafeInteger(v) && (v as number) >= 0 ? null : 'expected a non-negative integer'));
const oneOf = (...words: string[]): Check =>
  leaf((v) => (typeof v === 'string' && words.includes(v) ? null : `expected ${words.join(', ')}`));
const optional =
  (c: Check): Check =>
  (v) =>
    v === undefined ? null : c(v);
const STATE = oneOf('writing', 'written', 'restored');

function fields(shape: Record<string, Check>): Check {
  return (v) => {
    if (!isObj(v)) return ['', 'expected an object'];
    for (const [k, check] of Object.entries(shape)) {
      const f = check(v[k]);
      if (f !== null) return [f[0] === '' || f[0].startsWith('[') ? `${k}${f[0]}` : `${k}.${f[0]}`, f[1]];
    }
    return null;
  };
}

function list(item: Check): Check {
  return (v) => {
    if (!Array.isArray(v)) return ['', 'expected a list'];
    for (let i = 0; i < v.length; i++) {
      const f = item(v[i]);
      if (f !== null) return [f[0] === '' || f[0].startsWith('[') ? `[${i}]${f[0]}` : `[${i}].${f[0]}`, f[1]];
    }
    return null;
  };
}

const change = fields({
  kind: oneOf('sysctl', 'sysfs', 'irq-affinity', 'service', 'irqbalance-ban'),
  target: leaf((v) => (typeof v === 'string' || Number.isSafeInteger(v) ? null : 'expected a name or number')),
  value: str,
});

const entry: Check = (v) => {
  const f = fields({ change, path: strOrNull, old: str, restore: str, state: STATE })(v);
  if (f !== null) return f;
  const e = v as Record<string, unknown>;
  const kind = (e.change as { kind: string }).kind;
  return (kind === 'service' || kind === 'irqbalance-ban') === (e.path === null)
    ? null
    : ['path', "null exactly for a service and irqbalance's banned IRQs"];
};

const file = fields({
  path: leaf((v) => (typeof v === 'string' && v.startsWith('/') ? null : 'expected an absolute path')),
  old: strOrNull,
  state: STATE,
});
const thread = fields({ pid: int, tid: int, start: int, comm: str, old: str, value: str, state: STATE });

const changeSet = fields({
  version: leaf((v) => (v === 1 ? null : 'expected 1 (a numakit change set)')),
  id: leaf((v) => (typeof v === 'string' && /^[\w.-]+$/.test(v) ? null : 'expected an id')),
  time: str,
  source: str,
  status: oneOf('applying', 'applied', 'failed', 'rolled-back', 'rollback-incomplete'),
  pid: int,
  planned: int,
  entries: list(entry),
  files: list(file),
  threads: optional(list(thread)),
  error: optional(str),
  rolledBackAt: optional(str),
});

/** The first thing wrong with a parsed journal file ("entries[2].state: expected ..."), or null. */
export function checkChangeSet(v: unknown): string | null {
  const f = changeSet(v);
  return f === null ? null : f[0] === '' ? f[1] : `${f[0]}: ${f[1]}`;
}
