// The canonical form of an hwloc v2 XML export, in which numakit's `topo --xml` and hwloc's own
// `lstopo --of xml` are compared (test/unit/foundation/hwloc_oracle.test.ts, docs/topo.md):
//   - every object with its type and attributes (sorted by name), less gp_index: hwloc numbers
//     objects in the order its discovery happened to create them, which says nothing of the machine;
//   - its info pairs (sorted), less those that name the exporting program rather than the machine
//     (Backend, hwlocVersion, ProcessName);
//   - page types, then children in document order (hwloc writes them sorted: memory, CPU side by
//     cpuset, I/O, Misc), so a misplaced object is a difference;
//   - distances as one matrix, memory attributes with their target named by type and os_index
//     (or PCI bus id) instead of its gp_index, cpukinds and support flags as written.
// Pure.

interface El {
  readonly name: string;
  readonly attrs: Record<string, string>;
  readonly children: El[];
  text: string;
}

const DROPPED_INFOS = new Set(['Backend', 'hwlocVersion', 'ProcessName']);

const unescapeXml = (s: string) =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');

/** The elements of an XML document as hwloc writes it (no CDATA, no comments kept). */
export function parseXml(xml: string): El {
  const root: El = { name: '#root', attrs: {}, children: [], text: '' };
  const stack: El[] = [root];
  const re =
    /<(\/?)([A-Za-z_][\w.-]*)((?:\s+[\w:.-]+\s*=\s*"[^"]*")*)\s*(\/?)>|<\?[^>]*\?>|<!--[\s\S]*?-->|<![^>]*>|([^<]+)/g;
  for (const m of xml.matchAll(re)) {
    const top = stack.at(-1)!;
    if (m[5] !== undefined) {
      top.text += m[5];
      continue;
    }
    if (m[2] === undefined) continue;
    if (m[1] === '/') {
      if (top.name !== m[2]) throw new SyntaxError(`hwloc XML: </${m[2]}> closes <${top.name}>`);
      stack.pop();
      continue;
    }
    const attrs: Record<string, string> = {};
    for (const a of (m[3] ?? '').matchAll(/([\w:.-]+)\s*=\s*"([^"]*)"/g)) attrs[a[1]!] = unescapeXml(a[2]!);
    const el: El = { name: m[2], attrs, children: [], text: '' };
    top.children.push(el);
    if (m[4] !== '/') stack.push(el);
  }
  if (stack.length !== 1) throw new SyntaxError(`hwloc XML: <${stack.at(-1)!.name}> is not closed`);
  return root;
}

const attrText = (a: Record<string, string>, drop: ReadonlySet<string>) =>
  Object.entries(a)
    .filter(([k]) => !drop.has(k))
    .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .join(' ');

/** How an object is named where another element refers to it by gp_index. */
function objectName(o: El): string {
  const a = o.attrs;
  const id = a['os_index'] ?? a['pci_busid'] ?? a['name'] ?? a['cpuset'] ?? '?';
  return `${a['type']}:${id}`;
}

function objectLines(o: El, pad: string, out: string[]): void {
  out.push(`${pad}${o.attrs['type']} ${attrText(o.attrs, new Set(['type', 'gp_index']))}`);
  const infos = o.children
    .filter((c) => c.name === 'info' && !DROPPED_INFOS.has(c.attrs['name'] ?? ''))
    .map((c) => `${pad}  info ${JSON.stringify(c.attrs['name'])}=${JSON.stringify(c.attrs['value'])}`)
    .sort();
  out.push(...infos);
  for (const c of o.children) {
    if (c.name === 'page_type') out.push(`${pad}  page_type ${attrText(c.attrs, new Set())}`);
    else if (c.name === 'object') objectLines(c, `${pad}  `, out);
    else if (c.name !== 'info') out.push(`${pad}  ${c.name} ${attrText(c.attrs, new Set())} ${c.text.trim()}`);
  }
}

const words = (els: El[]) => els.flatMap((e) => e.text.trim().split(/\s+/)).filter((w) => w !== '');

function distanceLines(d: El): string[] {
  const kid = (n: string) => d.children.filter((c) => c.name === n);
  return [
    `distances2 ${attrText(d.attrs, new Set())}`,
    `  indexes ${words(kid('indexes')).join(' ')}`,
    `  values ${words(kid('u64values')).join(' ')}`,
  ];
}

function memattrLines(m: El, byGp: ReadonlyMap<string, string>): string[] {
  const values = m.children.map((v) => {
    const a = { ...v.attrs };
    for (const k of Object.keys(a))
      if (k.endsWith('gp_index')) {
        a[k.replace(/gp_index$/, 'name')] = byGp.get(a[k]!) ?? `gp_index ${a[k]}`;
        delete a[k];
      }
    return `  ${v.name} ${attrText(a, new Set())}`;
  });
  return [`memattr ${attrText(m.attrs, new Set())}`, ...values.sort()];
}

/** The canonical lines of an hwloc XML export. */
export function canonicalHwlocXml(xml: string): string[] {
  const doc = parseXml(xml);
  const topo = doc.children.find((c) => c.name === 'topology');
  if (topo === undefined) throw new SyntaxError('hwloc XML: no <topology> element');
  const byGp = new Map<string, string>();
  const index = (o: El) => {
    if (o.name === 'object' && o.attrs['gp_index'] !== undefined) byGp.set(o.attrs['gp_index'], objectName(o));
    o.children.forEach(index);
  };
  index(topo);
  const out: string[] = [`topology ${attrText(topo.attrs, new Set())}`];
  for (const c of topo.children) {
    if (c.name === 'object') objectLines(c, '', out);
    else if (c.name === 'distances2') out.push(...distanceLines(c));
    else if (c.name === 'memattr') out.push(...memattrLines(c, byGp));
    else if (c.name === 'cpukind')
      out.push(
        `cpukind ${attrText(c.attrs, new Set())}`,
        ...c.children.map((i) => `  info ${attrText(i.attrs, new Set())}`),
      );
    else out.push(`${c.name} ${attrText(c.attrs, new Set())}`);
  }
  return out;
}

/** The first difference between two line lists, with a little context, or null when equal. */
export function firstDifference(want: readonly string[], got: readonly string[], context = 3): string | null {
  let i = 0;
  while (i < want.length && i < got.length && want[i] === got[i]) i++;
  if (i === want.length && i === got.length) return null;
  const from = Math.max(0, i - context);
  const show = (l: readonly string[]) =>
    l
      .slice(from, i + context + 1)
      .map((s, k) => `${from + k === i ? '>' : ' '} ${s}`)
      .join('\n');
  return `line ${i + 1}\n--- hwloc\n${show(want)}\n--- numakit\n${show(got)}`;
}
