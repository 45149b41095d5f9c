// Small SVG building blocks for the topology picture. Pure: strings in, strings out; every text
// and attribute value is escaped (device names and models come from the machine).

export function esc(s: string | number): string {
  return String(s)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

export type Attrs = Readonly<Record<string, string | number | undefined>>;

function attrs(a: Attrs): string {
  return Object.entries(a)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => ` ${k}="${esc(v!)}"`)
    .join('');
}

export function el(name: string, a: Attrs, ...children: string[]): string {
  return children.length === 0 ? `<${name}${attrs(a)}/>` : `<${name}${attrs(a)}>${children.join('')}</${name}>`;
}

export function text(x: number, y: number, s: string, a: Attrs = {}): string {
  return el('text', { x, y, ...a }, esc(s));
}

export function rect(x: number, y: number, w: number, h: number, a: Attrs = {}): string {
  return el('rect', { x, y, width: w, height: h, ...a });
}

/**
 * The SLIT distance where the colour scale ends (red): a 2-socket EPYC's cross-socket 32. The
 * scale is the same for every machine, so a picture says how far a node is, not how far it is
 * compared with this machine's farthest: EPYC's 12 inside a socket stays green, a 2-socket
 * Xeon's 21 is yellow, 32 and beyond (CXL, 4-socket hops) red.
 */
export const FAR_DISTANCE = 32;

/** Green (10, local) to red (FAR_DISTANCE and beyond): one absolute scale for every machine. */
export function distanceColor(d: number): string {
  const t = Math.max(0, Math.min(1, (d - 10) / (FAR_DISTANCE - 10)));
  return `hsl(${Math.round(120 * (1 - t))}, 60%, ${Math.round(82 - 22 * t)}%)`;
}
