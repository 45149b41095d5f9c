// numakit topo [--json | --numactl]
import { parseArgs } from 'node:util';
import { discoverTopology } from '../../discover/topology.js';
import { renderNumactlHardware } from '../../render/numactl_hardware.js';
import { renderTopoJson } from '../../render/topo_json.js';
import { renderTopoText } from '../../render/topo_text.js';
import { UsageError } from '../../model/errors.js';
import type { Command } from '../context.js';

const usage = `usage: numakit topo [--json | --numactl]

The machine's NUMA topology: per node its CPUs, memory, huge pages and devices
(NICs, NVMe, block, GPUs, InfiniBand), then the distance matrix.

  --json      machine-readable, schemaVersion 1 (docs/json-schema.md)
  --numactl   exactly the output of 'numactl --hardware'
`;

const topo: Command = {
  summary: 'topology: nodes, CPUs, memory, devices, distances',
  usage,
  async run(args, ctx) {
    const { values } = parseArgs({ args, options: { json: { type: 'boolean' }, numactl: { type: 'boolean' } }, strict: true });
    if (values.json && values.numactl) throw new UsageError('topo: --json and --numactl cannot be used together');
    const t = discoverTopology(ctx.root, { devices: !values.numactl });
    ctx.out(values.json ? renderTopoJson(t) : values.numactl ? renderNumactlHardware(t) : renderTopoText(t));
    return 0;
  },
};
export default topo;
