// numakit topo [--json | --numactl | --xml | --svg FILE | --html FILE]
import { type DurableWriteError, writeNamedFile } from '../../actuate/atomic_write.js';
import { NumakitError } from '../../model/errors.js';
import { discoverTopology } from '../../discover/topology.js';
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
    help: 'hwloc v2 XML (lstopo --input FILE, hwloc-calc --input FILE, MPI\nlaunchers and Slurm read it): packages, caches, cores, PUs, NUMA nodes\nand distances; no I/O devices (docs/topo.md)',
  },
  html: {
    type: 'string',
    value: 'FILE',
    complete: 'file',
    help: 'the same picture in a web page of its own, with the text view; - = stdout',
  },
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
  synopsis: ['[--json | --numactl | --xml | --svg FILE | --html FILE]'],
  description: `The machine's NUMA topology: per node its CPUs, caches and L3 groups (EPYC CCX/CCD),
memory, huge pages and devices (NICs, NVMe, block, GPUs, InfiniBand) with the PCI bridge
each hangs under, then the distance matrix. --xml writes it for hwloc's tools.`,
  options: OPTIONS,
  conflicts: [['json', 'numactl', 'svg', 'html', 'xml']],
  async run({ values }, ctx) {
    const t = discoverTopology(ctx.root, { devices: !values.numactl && !values.xml, caches: !values.numactl });
    if (values.xml) {
      ctx.out((await import('../../render/topo_hwloc_xml.js')).renderHwlocXml(t));
      return 0;
    }
    if (values.svg !== undefined || values.html !== undefined) {
      // Loaded only here: plain `topo` stays lean.
      const [{ renderTopoSvg }, { renderTopoHtml }] = await Promise.all([
        import('../../render/topo_svg.js'),
        import('../../render/topo_html.js'),
      ]);
      const title = ctx.root.isReal ? 'this machine' : ctx.root.label;
      if (values.svg !== undefined) writeOut(values.svg, renderTopoSvg(t), ctx.out, 'svg');
      else writeOut(values.html!, renderTopoHtml(t, { title }), ctx.out, 'html');
      return 0;
    }
    // Each view loads only its own renderer (start-up: docs/startup.md).
    ctx.out(
      values.json
        ? (await import('../../render/topo_json.js')).renderTopoJson(t, readWarnings(ctx))
        : values.numactl
          ? (await import('../../render/numactl_hardware.js')).renderNumactlHardware(t)
          : renderTopoText(t),
    );
    return 0;
  },
};
export default topo;
