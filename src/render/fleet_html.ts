// numakit fleet report --html: one self-contained page (no network, no external file): one
// table per topology class with each host's findings and the settings where it differs from
// the fleet, then findings x hosts, outliers, incomplete hosts and inputs not used. Every table
// sorts by a click on its header. Pure.
import type { FleetReport, HostRecord } from '../model/fleet.js';
import { plural } from '../model/bytes.js';
import { headline, outlierText, settingLine } from './fleet_common.js';

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function table(head: string[], rows: string[][], numeric: ReadonlySet<number> = new Set()): string {
  const th = head.map((h, i) => `<th data-type="${numeric.has(i) ? 'num' : 'text'}">${esc(h)}</th>`).join('');
  const body = rows.map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join('')}</tr>`).join('\n');
  return `<table class="sortable"><thead><tr>${th}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

const SEVERITIES = ['critical', 'warning', 'info'] as const;

function classTable(r: FleetReport, hosts: readonly HostRecord[]): string {
  const outlying = new Map<string, string[]>();
  for (const o of r.outliers)
    for (const x of o.outliers) outlying.set(x.host, [...(outlying.get(x.host) ?? []), `${o.setting}=${x.value}`]);
  const rows = hosts.map((h) => {
    const problems = (h.findings ?? []).filter((f) => (SEVERITIES as readonly string[]).includes(f.severity));
    const count = (s: string) => String(problems.filter((f) => f.severity === s).length);
    return [
      esc(h.host),
      ...SEVERITIES.map(count),
      esc(problems.map((f) => f.id).join(', ')),
      esc((outlying.get(h.host) ?? []).join(', ')),
      esc(h.incomplete.join('; ')),
    ];
  });
  return table(
    ['host', 'critical', 'warning', 'info', 'findings', 'differs from the fleet', 'incomplete'],
    rows,
    new Set([1, 2, 3]),
  );
}

const STYLE = `body{font:14px system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse;margin:.5em 0 2em}
th,td{border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top}th{background:#eee;cursor:pointer;user-select:none}
th.asc::after{content:" \\25B2"}th.desc::after{content:" \\25BC"}td:nth-child(n+2){max-width:40em}`;

const SORT = `document.querySelectorAll('table.sortable th').forEach(function(th,col){th.addEventListener('click',function(){
var t=th.closest('table'),b=t.tBodies[0],num=th.dataset.type==='num',asc=!th.classList.contains('asc');
t.querySelectorAll('th').forEach(function(h){h.classList.remove('asc','desc')});th.classList.add(asc?'asc':'desc');
var rows=Array.prototype.slice.call(b.rows);rows.sort(function(x,y){var a=x.cells[col].textContent,c=y.cells[col].textContent;
var d=num?(parseFloat(a)||0)-(parseFloat(c)||0):a.localeCompare(c,undefined,{numeric:true});return asc?d:-d});
rows.forEach(function(r){b.appendChild(r)})})});`;

export function renderFleetHtml(r: FleetReport): string {
  const byHost = new Map(r.hosts.map((h) => [h.host, h]));
  const parts = [`<h1>${esc(headline(r))}</h1>`];
  r.classes.forEach((c, i) =>
    parts.push(
      `<h2>Class ${i + 1}: ${esc(c.label)} (${plural(c.hosts.length, 'host')})</h2>`,
      classTable(
        r,
        c.hosts.map((h) => byHost.get(h)!),
      ),
    ),
  );
  const unclassed = r.hosts.filter((h) => h.shape === null);
  if (unclassed.length > 0)
    parts.push(
      `<h2>No topology (doctor report only): ${plural(unclassed.length, 'host')}</h2>`,
      classTable(r, unclassed),
    );
  parts.push(
    '<h2>Findings x hosts</h2>',
    table(
      ['severity', 'finding', 'title', 'hosts', 'which'],
      r.findings.map((f) => [f.severity, esc(f.id), esc(f.title), String(f.hosts.length), esc(f.hosts.join(', '))]),
      new Set([3]),
    ),
  );
  parts.push(
    '<h2>Settings that differ between hosts</h2>',
    table(
      ['setting', 'majority', 'hosts with it', 'differs'],
      r.outliers.map((o) => [
        esc(o.setting),
        o.hasMajority ? esc(o.majority) : 'none',
        o.hasMajority ? `${o.majorityCount} of ${o.known}` : `0 of ${o.known}`,
        esc(o.hasMajority ? outlierText(o, Infinity) : settingLine(o, Infinity)),
      ]),
      new Set([2]),
    ),
  );
  parts.push(
    '<h2>Incomplete data</h2>',
    table(
      ['host', 'why'],
      r.incomplete.map((i) => [esc(i.host), esc(i.reasons.join('; '))]),
    ),
  );
  if (r.problems.length > 0)
    parts.push('<h2>Inputs not used</h2>', `<ul>${r.problems.map((p) => `<li>${esc(p.message)}</li>`).join('')}</ul>`);
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${esc(headline(r))}</title><style>${STYLE}</style></head>\n<body>\n${parts.join('\n')}\n<script>${SORT}</script>\n</body></html>\n`;
}
