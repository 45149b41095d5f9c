import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseHwlocBitmap, parseHwlocXml } from './hwloc_xml.js';

// Trimmed from lstopo-no-graphics 2.9 --of xml in a 3-node lab guest (node 2 memory-only).
const XML = `<topology version="2.0">
  <object type="Machine" os_index="0" cpuset="0x0000000f" gp_index="1">
    <object type="Package" os_index="0" cpuset="0x00000003" gp_index="3">
      <object type="NUMANode" os_index="0" cpuset="0x00000003" complete_cpuset="0x00000003" nodeset="0x00000001" gp_index="26" local_memory="480374784"/>
    </object>
    <object type="Package" os_index="1" cpuset="0x0000000c" gp_index="4">
      <object type="NUMANode" os_index="1" cpuset="0x0000000c" gp_index="27" local_memory="527794176"/>
    </object>
    <object type="NUMANode" os_index="2" cpuset="0x0" gp_index="28" local_memory="263876608"/>
  </object>
  <distances2 type="NUMANode" nbobjs="3" kind="5" name="NUMALatency" indexing="os">
    <indexes length="6">0 1 2 </indexes>
    <u64values length="21">10 21 30 21 10 32 </u64values>
    <u64values length="9">30 32 10 </u64values>
  </distances2>
</topology>`;

describe('parseHwlocXml', () => {
  it('reads NUMANode ids, cpusets, local memory and the distance matrix', () => {
    const h = parseHwlocXml(XML);
    assert.deepEqual(h.nodes, [
      { id: 0, cpus: [0, 1], memTotalBytes: 480374784 },
      { id: 1, cpus: [2, 3], memTotalBytes: 527794176 },
      { id: 2, cpus: [], memTotalBytes: 263876608 },
    ]);
    assert.deepEqual(h.distances, {
      0: { 0: 10, 1: 21, 2: 30 },
      1: { 0: 21, 1: 10, 2: 32 },
      2: { 0: 30, 1: 32, 2: 10 },
    });
  });

  it('rejects XML without NUMA nodes and a short distance matrix', () => {
    assert.throws(() => parseHwlocXml('<topology/>'), /no NUMANode object/);
    assert.throws(() => parseHwlocXml(XML.replace('30 32 10 ', '')), /6 values for 3 nodes/);
  });
});

describe('parseHwlocBitmap', () => {
  it('reads multi-word bitmaps, most significant word first', () => {
    assert.deepEqual(parseHwlocBitmap('0x0'), []);
    assert.deepEqual(parseHwlocBitmap('0x00000001,0x80000001'), [0, 31, 32]);
    assert.throws(() => parseHwlocBitmap('zz'), /bad hwloc bitmap/);
  });
});
