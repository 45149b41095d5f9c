import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalHwlocXml, firstDifference, parseXml } from '../../helpers/hwloc_canon.js';

const XML = (gp: number, extra = '') => `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE topology SYSTEM "hwloc2.dtd">
<topology version="2.0">
  <object type="Machine" os_index="0" cpuset="0x00000003" gp_index="${gp}">
    <info name="Backend" value="${extra ? 'numakit' : 'Linux'}"/>
    <info name="hwlocVersion" value="2.9.0"/>
    <info name="DMIProductName" value="A &amp; B"/>
    <object type="NUMANode" os_index="0" cpuset="0x00000003" gp_index="${gp + 1}" local_memory="1024">
      <page_type size="4096" count="0"/>
    </object>${extra}
  </object>
  <distances2 type="NUMANode" nbobjs="1" kind="5" name="NUMALatency" indexing="os">
    <indexes length="2">0 </indexes>
    <u64values length="3">10 </u64values>
  </distances2>
  <memattr name="Capacity" flags="1">
    <memattr_value target_obj_gp_index="${gp + 1}" target_obj_type="NUMANode" value="1024"/>
  </memattr>
</topology>`;

describe('canonicalHwlocXml', () => {
  it('drops gp_index and the exporting program, names memattr targets, keeps the rest', () => {
    const c = canonicalHwlocXml(XML(1));
    assert.deepEqual(c, [
      'topology version="2.0"',
      'Machine cpuset="0x00000003" os_index="0"',
      '  info "DMIProductName"="A & B"',
      '  NUMANode cpuset="0x00000003" local_memory="1024" os_index="0"',
      '    page_type count="0" size="4096"',
      'distances2 indexing="os" kind="5" name="NUMALatency" nbobjs="1" type="NUMANode"',
      '  indexes 0',
      '  values 10',
      'memattr flags="1" name="Capacity"',
      '  memattr_value target_obj_name="NUMANode:0" target_obj_type="NUMANode" value="1024"',
    ]);
    assert.deepEqual(canonicalHwlocXml(XML(7)), c);
  });

  it('an extra object is a difference, named with its line', () => {
    const d = firstDifference(
      canonicalHwlocXml(XML(1)),
      canonicalHwlocXml(XML(1, '<object type="Misc" gp_index="9"/>')),
    );
    assert.match(d ?? '', /line 6[\s\S]*> distances2[\s\S]*> {3}Misc/);
    assert.equal(firstDifference(['a'], ['a']), null);
  });

  it('rejects XML that is not well nested', () => {
    assert.throws(() => parseXml('<a><b></a>'), /closes <b>/);
    assert.throws(() => parseXml('<a>'), /not closed/);
    assert.throws(() => canonicalHwlocXml('<x/>'), /no <topology>/);
  });
});
