// numakit serve's dashboard: the topology picture from /api/topology (redrawn when the
// machine's topology changes), live values from /api/live every 2 s. Plain DOM, no library;
// every value from the machine is set as text, never as HTML.

const POLL_MS = 2000;
let topologyVersion = -1;
let previous = null;

const $ = (id) => document.getElementById(id);

function bytes(b) {
  if (b === null || b === undefined) return '?';
  const u = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = b;
  let i = 0;
  while (Math.abs(v) >= 1024 && i < u.length - 1) {
    v /= 1024;
    i++;
  }
  return i === 0 ? `${v} B` : `${v >= 100 ? v.toFixed(0) : v.toFixed(1)} ${u[i]}`;
}

function cell(row, text) {
  const td = document.createElement('td');
  td.textContent = text;
  row.appendChild(td);
}

function fillRows(tbody, rows) {
  tbody.replaceChildren(
    ...rows.map((cells) => {
      const tr = document.createElement('tr');
      cells.forEach((c) => cell(tr, c));
      return tr;
    }),
  );
}

async function getJson(path) {
  const r = await fetch(path, { cache: 'no-store' });
  if (!r.ok) throw new Error(`${path}: HTTP ${r.status}`);
  return r.json();
}

async function loadTopology() {
  const t = await getJson('api/topology');
  topologyVersion = t.version;
  $('title').textContent = t.title;
  document.title = `numakit: ${t.title}`;
  // Server-rendered and escaped SVG (src/render/topo_svg.ts).
  $('topology').innerHTML = t.svg;
  const tiers = $('tiers');
  tiers.textContent = (t.tiers ?? []).join('\n');
  tiers.hidden = !t.tiers || t.tiers.length === 0;
}

function rate(now, before, node, key, group = 'numastat') {
  if (!before) return null;
  const a = now.nodes.find((n) => n.node === node);
  const b = before.nodes.find((n) => n.node === node);
  const dt = (now.at - before.at) / 1000;
  if (!a || !b || !a[group] || !b[group] || dt <= 0 || a[group][key] === undefined || b[group][key] === undefined)
    return null;
  return Math.max(0, (a[group][key] - b[group][key]) / dt);
}

function fmtRate(r) {
  return r === null ? '–' : r >= 100 ? r.toFixed(0) : r.toFixed(1);
}

function showNodes(live) {
  // A --root or --example is not this machine now: say so instead of "live".
  $('nodes-mode').textContent = live.snapshot ? '(a snapshot, not live)' : '(live)';
  fillRows(
    $('nodes').tBodies[0],
    live.nodes.map((n) => {
      const used = n.memTotal === null || n.memFree === null ? null : n.memTotal - n.memFree;
      const r = (k) => fmtRate(rate(live, previous, n.node, k));
      return [
        String(n.node),
        n.busyCpus === null
          ? live.snapshot
            ? '– (a snapshot: no CPU times)'
            : `– / ${n.cpus}`
          : `${n.busyCpus.toFixed(2)} / ${n.cpus}`,
        `${bytes(used)} of ${bytes(n.memTotal)}`,
        bytes(n.memFree),
        r('numa_hit'),
        r('numa_miss'),
        r('other_node'),
        r('local_node'),
        fmtRate(rate(live, previous, n.node, 'pgpromote_success', 'tiering')),
        fmtRate(rate(live, previous, n.node, 'pgdemote', 'tiering')),
      ];
    }),
  );
  for (const n of live.nodes) {
    const bar = document.getElementById(`node-${n.node}-mem-used`);
    const label = document.getElementById(`node-${n.node}-mem-text`);
    if (!bar || n.memTotal === null || n.memFree === null || n.memTotal === 0) continue;
    const used = n.memTotal - n.memFree;
    bar.setAttribute('width', String(Math.round((Number(bar.dataset.width) * used) / n.memTotal)));
    if (label) label.textContent = `${bytes(used)} used of ${bytes(n.memTotal)}`;
  }
}

function showProcesses(live) {
  fillRows(
    $('procs').tBodies[0],
    live.processes.map((p) => [
      String(p.pid),
      p.name,
      bytes(p.totalBytes),
      bytes(p.remoteBytes),
      p.locality === null ? '–' : `${Math.round(p.locality * 100)}%`,
      Object.entries(p.nodes)
        .map(([n, b]) => `${n}: ${bytes(b)}`)
        .join('  '),
      p.runNodes.join(','),
    ]),
  );
  $('procs-note').textContent = processesNote(live);
}

/** What the process table shows, and why processes are missing from it: unreadable, or a snapshot. */
function processesNote(live) {
  const parts = [
    `top ${live.processes.length} of ${live.scanned} processes; locality = share of memory on the nodes where the process ran since the previous reading`,
  ];
  const denied = (live.gaps || []).find(([name, reason]) => name === 'processes' && reason === 'no-permission');
  if (denied)
    parts.push(
      `${denied[2]} not shown: their numa_maps is readable only by root or their owner (run numakit serve as root)`,
    );
  if (live.snapshot && live.processes.length > 0)
    parts.push(
      'this is a snapshot: it holds one reading of each process and no /proc/stat, so locality weighs the CPU time each process used since it started, not since a previous reading',
    );
  else if (live.snapshot)
    parts.push(
      'this is a snapshot: it holds one reading of each process and no /proc/stat, so no CPU use can be measured between two readings and no process is listed; numakit --root SNAPSHOT stat --procs shows its processes with their CPU time since start',
    );
  return parts.join('. ');
}

function finding(f) {
  const div = document.createElement('div');
  div.className = `finding ${f.severity}`;
  const head = document.createElement('div');
  const sev = document.createElement('span');
  sev.className = 'sev';
  sev.textContent = f.severity;
  head.append(sev, document.createTextNode(f.title));
  const why = document.createElement('div');
  why.className = 'note';
  why.textContent = f.why;
  div.append(head, why);
  for (const [label, lines] of [
    ['now', f.fix.runtime],
    ['persistent', f.fix.persistent],
  ]) {
    if (lines.length === 0) continue;
    const pre = document.createElement('pre');
    pre.textContent = `# ${label}\n${lines.join('\n')}`;
    div.appendChild(pre);
  }
  return div;
}

function showDoctor(live) {
  const d = live.doctor;
  if (!d) return;
  const note = document.createElement('p');
  note.className = 'note';
  note.textContent = `${d.problems.length} finding(s), ${d.notChecked} check(s) lacked their data; last run ${new Date(d.at).toLocaleTimeString()}`;
  $('doctor').replaceChildren(note, ...d.problems.map(finding));
}

function showAgent(live) {
  $('agent-section').hidden = !live.agent;
  if (!live.agent) return;
  $('agent').replaceChildren(
    ...live.agent.recent
      .slice()
      .reverse()
      .map((e) => {
        const li = document.createElement('li');
        li.textContent = e.line;
        return li;
      }),
  );
}

function showStatus(live) {
  const s = $('status');
  s.textContent = `updated ${new Date(live.at).toLocaleTimeString()} · scrape ${(live.scrapeSeconds * 1000).toFixed(0)} ms`;
  if (live.partial) {
    const p = document.createElement('span');
    p.className = 'partial';
    p.textContent = ' · partial (time limit reached)';
    s.appendChild(p);
  }
}

async function tick() {
  try {
    const live = await getJson('api/live');
    if (live.topologyVersion !== topologyVersion) await loadTopology();
    showNodes(live);
    showProcesses(live);
    showDoctor(live);
    showAgent(live);
    showStatus(live);
    previous = live;
  } catch (e) {
    $('status').textContent = `cannot reach numakit serve: ${e.message}; retrying`;
  }
  setTimeout(tick, POLL_MS);
}

tick();
