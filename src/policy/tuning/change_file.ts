// The YAML change file of `numakit apply FILE`: a list of changes in the model's own terms,
// validated once here (zod) so a mistake is one line naming the file, the line and the field.
//
//   changes:
//     - {kind: sysctl, target: vm.swappiness, value: 10}
//     - {kind: sysfs, target: /sys/kernel/mm/transparent_hugepage/enabled, value: never}
//     - {kind: irq-affinity, target: 45, value: 0-15}
//     - {kind: service, target: irqbalance, value: stopped}
//     - {kind: irqbalance-ban, target: irqbalance, value: "45,46"}   (the IRQs a running irqbalance leaves alone)
import { LineCounter, parseDocument } from 'yaml';
import { z } from 'zod';
import { formatIrqList, parseIrqList, type Change } from '../../model/change.js';
import { parseCpuList } from '../../model/cpuset.js';
import { UsageError } from '../../model/errors.js';

const scalar = z.union([z.string(), z.number()]).transform(String);
const reason = z.string().optional();

function isCpuList(v: string): boolean {
  try {
    return parseCpuList(v).length > 0;
  } catch {
    return false;
  }
}

const ChangeSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('sysctl'),
    target: z.string().regex(/^[a-z0-9_]+(\.[\w-]+)+$/, 'a sysctl name such as vm.swappiness'),
    value: scalar,
    reason,
  }),
  z.strictObject({
    kind: z.literal('sysfs'),
    target: z
      .string()
      .regex(/^\/?sys\/[\w.:+@/-]+$/, 'a path under /sys/ (no . or .. parts)')
      .refine((t) => !t.split('/').some((p) => p === '.' || p === '..'), 'a path under /sys/ (no . or .. parts)'),
    value: scalar,
    reason,
  }),
  z.strictObject({
    kind: z.literal('irq-affinity'),
    target: z.number().int().nonnegative('an IRQ number'),
    value: scalar.refine(isCpuList, 'a CPU list such as 0-15,32-47'),
    reason,
  }),
  z.strictObject({
    kind: z.literal('irqbalance-ban'),
    target: z.literal('irqbalance'),
    value: scalar.refine(
      (v) => /^\s*(none|\d+\s*(,\s*\d+\s*)*)?$/.test(v),
      'IRQ numbers such as 45,46 (none for none)',
    ),
    reason,
  }),
  z.strictObject({
    kind: z.literal('service'),
    target: z.string().regex(/^[\w@.:-]+$/, 'a systemd unit name'),
    value: z.enum(['stopped', 'running']),
    reason,
  }),
]);

const SHAPE = 'a change file is a map with a "changes:" list';
const FileSchema = z.strictObject(
  {
    changes: z
      .array(ChangeSchema, { error: (iss) => (iss.input === undefined ? `missing: ${SHAPE}` : undefined) })
      .min(1, 'at least one change'),
  },
  { error: (iss) => (iss.code === 'invalid_type' ? SHAPE : undefined) },
);

function toChange(c: z.infer<typeof ChangeSchema>, name: string): Change {
  const why = c.reason ?? `from ${name}`;
  switch (c.kind) {
    case 'sysfs':
      return { kind: 'sysfs', target: c.target.replace(/^\//, ''), value: c.value, reason: why };
    case 'sysctl':
      return { kind: 'sysctl', target: c.target, value: c.value, reason: why };
    case 'irq-affinity':
      return { kind: 'irq-affinity', target: c.target, value: c.value, reason: why };
    case 'service':
      return { kind: 'service', target: c.target, value: c.value, reason: why };
    case 'irqbalance-ban':
      return { kind: 'irqbalance-ban', target: 'irqbalance', value: formatIrqList(parseIrqList(c.value)), reason: why };
  }
}

function fieldName(path: readonly PropertyKey[]): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${String(p)}`)).join('');
}

/**
 * The document as plain data. Aliases are expanded at most 100 times (yaml's own guard against
 * "billion laughs" alias bombs, which it reports by throwing): a refused file is a usage error.
 */
function toJS(doc: ReturnType<typeof parseDocument>, name: string): unknown {
  try {
    return doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    throw new UsageError(`${name}: not a change file: ${(e as Error).message.split('\n')[0]}`);
  }
}

/** Parses and validates a change file; `name` is how errors name the file. */
export function parseChangeFile(text: string, name: string): Change[] {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!;
    throw new UsageError(`${name}:${lines.linePos(e.pos[0]).line}: not valid YAML: ${e.message.split('\n')[0]}`);
  }
  const r = FileSchema.safeParse(toJS(doc, name));
  if (!r.success) {
    const issue = r.error.issues[0]!;
    const node = doc.getIn(issue.path as (string | number)[], true) as { range?: [number, number, number] } | undefined;
    const parent = doc.getIn(issue.path.slice(0, -1) as (string | number)[], true) as
      | { range?: [number, number, number] }
      | undefined;
    const at = node?.range ?? parent?.range;
    const line = at === undefined ? '' : `:${lines.linePos(at[0]).line}`;
    const field = issue.path.length === 0 ? '' : ` ${fieldName(issue.path)}:`;
    throw new UsageError(`${name}${line}:${field} ${issue.message}`);
  }
  return r.data.changes.map((c) => toChange(c, name));
}
