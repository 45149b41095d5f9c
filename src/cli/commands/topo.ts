// numakit topo [--json | --numactl | --xml | --svg FILE | --html FILE | --only TYPE [-p | -l]]
import { type DurableWriteError, writeNamedFile } from '../../actuate/atomic_write.js';
import { NumakitError, UsageError } from '../../model/errors.js';
import { ONLY_TYPES, type OnlyType } from '../../render/topo_only_types.js';
import { discoverTopology } from '../../discover/topology.js';
import { type CoreFiles, readCpuList } from '../../sysfs/cpu_topology.js';
import { setV8Flags, v8FlagsForMachine } from '../../runtime/v8_flags.js';
import { renderTopoText } from '../../render/topo_text.js';
import type { ParsedOptions, CommandModule } from '../options.js';
import { readWarnings } from '../warnings.js';

const OPTIONS = {
  json: { type: 'boolean', help: 'machine-readable, schemaVersion 1 (docs/topo.md)' },
  numactl: { type: 'boolean', help: "exactly the output of 'numactl --hardware'" },
  svg: {
    type: 'string',
    value: 'FILE',
    complete: 'file',
    help: 'the topology as a picture (SVG): nodes with their CPUs, memory and\ndevices, memory-only nodes marked, the distances as a heatmap; - = stdout',
  },
  xml: {
    type: 'boolean',
    help: "hwloc v2 XML (lstopo --input FILE, hwloc-calc --input FILE, MPI\nlaunchers and Slurm read it), equal to hwloc's own export of the machine,\nI/O devices included (docs/topo.md)",
  },
  html: {
    type: 'string',
    value: 'FILE',
    complete: 'file',
    help: 'the same picture in a web page of its own, with the text view; - = stdout',
  },
  only: {
    type: 'string',
    value: 'TYPE',
    choices: ONLY_TYPES,
    help: "only the objects of TYPE of hwloc's view of the machine, one a line,\nas lstopo --only TYPE: numa, package, die, group, l3, l2, l1, core, pu,\npci, osdev",
  },
  physical: { type: 'boolean', short: 'p', help: "with --only: physical indexes (P#, the kernel's), as lstopo -p" },
  logical: { type: 'boolean', short: 'l', help: 'with --only: logical indexes (L#, the default), as lstopo -l' },
} as const;

/** Writes a picture file (or stdout for "-"); one line naming the file on failure. */
function writeOut(file: string, text: string, out: (t: string) => void, what: string): void {
  if (file === '-') {
    out(text);
    return;
  }
  try {
    writeNamedFile(file, text);
  } catch (e) {
    const code = (e as DurableWriteError).code;
    throw new NumakitError(
      `topo: --${what} ${file}: ${code === 'ENOENT' ? 'no such directory' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'is a directory' : (e as Error).message}`,
    );
  }
}

const topo: CommandModule<ParsedOptions<typeof OPTIONS>> = {
  synopsis: ['[--json | --numactl | --xml | --svg FILE | --html FILE | --only TYPE [-p | -l]]'],
  description: `The machine's NUMA topology: per node its CPUs, caches and L3 groups (EPYC CCX/CCD),
memory, huge pages and devices (NICs, NVMe, block, GPUs, InfiniBand) with the PCI bridge
each hangs under, hwloc's groups and I/O tree (as --xml has them; --json, --svg and
--html show them too), then the distance matrix. --xml writes it for hwloc's tools, as hwloc's own
lstopo --of xml would (host bridges, PCI and OS devices, groups, memory-side caches included);
--only TYPE lists the objects of one type of that same tree, as lstopo --only does.`,
  options: OPTIONS,
  conflicts: [
    ['json', 'numactl', 'svg', 'html', 'xml', 'only'],
    ['physical', 'logical'],
  ],
  async run({ values }, ctx) {
    // A large machine's topo holds V8's young generation at its start size (runtime/v8_flags.ts).
    const flags = v8FlagsForMachine(readCpuList(ctx.root, 'possible')?.length ?? 0);
    if (flags.length > 0) setV8Flags(flags);
    // What numakit's topology reads of each core, hwloc's facts below take instead of reading it again.
    const cores = new Map<number, CoreFiles>();
    const t = discoverTopology(ctx.root, {
      devices: !values.numactl && !values.xml && values.only === undefined,
      caches: !values.numactl,
      record: cores,
    });
    if ((values.physical || values.logical) && values.only === undefined)
      throw new UsageError('topo: -p/-l go with --only TYPE');
    if (values.only !== undefined) {
      const facts = (await import('../../discover/hwloc_facts.js')).discoverHwlocFacts(ctx.root, { cores });
      const { renderTopoOnly } = await import('../../render/topo_only.js');
      ctx.out(renderTopoOnly(t, facts, values.only as OnlyType, values.physical === true));
      return 0;
    }
    if (values.xml) {
      const facts = (await import('../../discover/hwloc_facts.js')).discoverHwlocFacts(ctx.root, { cores });
      ctx.out((await import('../../render/topo_hwloc_xml.js')).renderHwlocXml(t, facts));
      return 0;
    }
    // Every other view but --numactl shows hwloc's groups, memory-side caches and I/O tree too,
    // derived from the tree --xml writes (render/hwloc_view.ts).
    const view = values.numactl
      ? undefined
      : (await import('../../render/hwloc_view.js')).hwlocView(
          t,
          (await import('../../discover/hwloc_facts.js')).discoverHwlocTreeFacts(ctx.root, { cores }),
        );
    if (values.svg !== undefined || values.html !== undefined) {
      // Loaded only here: plain `topo` stays lean.
      const [{ renderTopoSvg }, { renderTopoHtml }] = await Promise.all([
        import('../../render/topo_svg.js'),
        import('../../render/topo_html.js'),
      ]);
      const title = ctx.root.isReal ? 'this machine' : ctx.root.label;
      if (values.svg !== undefined) writeOut(values.svg, renderTopoSvg(t, { view }), ctx.out, 'svg');
      else writeOut(values.html!, renderTopoHtml(t, { title, view }), ctx.out, 'html');
      return 0;
    }
    // Each view loads only its own renderer (start-up: docs/startup.md).
    ctx.out(
      values.json
        ? (await import('../../render/topo_json.js')).renderTopoJson(t, readWarnings(ctx), { view })
        : values.numactl
          ? (await import('../../render/numactl_hardware.js')).renderNumactlHardware(t)
          : renderTopoText(t, view),
    );
    return 0;
  },
};
export default topo;
