// The topology (nodes, CPUs, devices, distances) for the scrapes and the dashboard, read at
// start and again when it is older than a TTL: the PCI scan behind devices costs more than a
// scrape should, and devices and distances change only on hotplug. A read that fails keeps
// the previous topology and is a gap.
import { discoverTopology } from '../../discover/topology.js';
import type { Topology } from '../../model/topology.js';
import { guard, type CollectContext } from './context.js';

export class TopologyCache {
  private topo: Topology | null = null;
  private at = -Infinity;
  /** Bumped at every re-read that changed the topology (the dashboard redraws its picture). */
  version = 0;

  constructor(private readonly ttlMs: number) {}

  get(c: CollectContext): Topology | null {
    if (this.topo !== null && c.now() - this.at < this.ttlMs) return this.topo;
    const t = guard(c, 'topology', () => discoverTopology(c.root));
    this.at = c.now();
    if (t !== null && JSON.stringify(t) !== JSON.stringify(this.topo)) {
      this.topo = t;
      this.version++;
    }
    return this.topo;
  }
}
