// Settings that differ between hosts: for each setting, the value most hosts have (among hosts
// where it was read), whether that is a majority (more than half of them), and the hosts that
// have another. A setting with no majority (a 50/50 split, three values on three hosts) is
// reported too, against its most common value, and says it has none. Pure.
import type { Settings, SettingOutlier } from '../../model/fleet.js';

export function settingOutliers(hosts: readonly { host: string; settings: Settings }[]): SettingOutlier[] {
  const names = [...new Set(hosts.flatMap((h) => Object.keys(h.settings)))];
  const out: SettingOutlier[] = [];
  for (const setting of names) {
    const counts = new Map<string, number>();
    for (const h of hosts) {
      const v = h.settings[setting];
      if (v !== null && v !== undefined) counts.set(v, (counts.get(v) ?? 0) + 1);
    }
    if (counts.size < 2) continue;
    // Most common first; ties broken by the value so the report is stable.
    const [majority, majorityCount] = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]!;
    const outliers = hosts
      .filter((h) => {
        const v = h.settings[setting];
        return v !== null && v !== undefined && v !== majority;
      })
      .map((h) => ({ host: h.host, value: h.settings[setting]! }))
      .sort((a, b) => a.value.localeCompare(b.value) || a.host.localeCompare(b.host));
    const known = [...counts.values()].reduce((a, b) => a + b, 0);
    const commonHosts = hosts.filter((h) => h.settings[setting] === majority).map((h) => h.host);
    const hasMajority = majorityCount * 2 > known;
    out.push({ setting, majority, majorityCount, known, hasMajority, commonHosts, outliers });
  }
  // The rarest deviations first: one host with THP=always is the line to read.
  return out.sort((a, b) => a.outliers.length - b.outliers.length || a.setting.localeCompare(b.setting));
}
