// numakit topo [--json | --numactl]
import { discoverTopology } from '../../discover/topology.js';
import { renderNumactlHardware } from '../../render/numactl_hardware.js';
import { renderTopoJson } from '../../render/topo_json.js';
import { renderTopoText } from '../../render/topo_text.js';
import type { Command, ParsedOptions } from '../options.js';

const OPTIONS = {
  json: { type: 'boolean', help: 'machine-readable, schemaVersion 1 (docs/topo.md)' },
  numactl: { type: 'boolean', help: "exactly the output of 'numactl --hardware'" },
} as const;

const topo: Command<ParsedOptions<typeof OPTIONS>> = {
  summary: 'topology: nodes, CPUs, memory, devices, distances',
  synopsis: ['[--json | --numactl]'],
  description: `The machine's NUMA topology: per node its CPUs, memory, huge pages and devices
(NICs, NVMe, block, GPUs, InfiniBand), then the distance matrix.`,
  options: OPTIONS,
  conflicts: [['json', 'numactl']],
  async run({ values }, ctx) {
    const t = discoverTopology(ctx.root, { devices: !values.numactl });
    ctx.out(values.json ? renderTopoJson(t) : values.numactl ? renderNumactlHardware(t) : renderTopoText(t));
    return 0;
  },
};
export default topo;
