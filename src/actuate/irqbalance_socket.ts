// irqbalance steered through its socket instead of stopped: /run/irqbalance/irqbalancePID.sock
// (irqbalance >= 1.8; systemd's RuntimeDirectory=irqbalance creates the directory). "setup"
// answers "SLEEP 10 IRQ 40 LOAD 0 DIFF 0 CLASS 0 ... BANNED <cpumask>": the IRQs listed before
// BANNED are the ones it leaves alone; "settings ban irqs 40 41" replaces that set ("NONE"
// empties it), its --banirq IRQs included (irqbalance.c, sock_handle; measured with 1.9.2).
import { readdirSync } from 'node:fs';
import { NumakitError } from '../model/errors.js';
import { unixRequest } from '../native/unix_socket.js';
import { rootPath, type SysRoot } from '../sysfs/root.js';
import { alive } from '../runtime/pid_alive.js';

export interface IrqbalanceControl {
  /** The IRQs irqbalance leaves alone now, sorted. */
  banned(): number[];
  /** Replaces that set; throws NumakitError. */
  setBanned(irqs: readonly number[]): void;
}

/** The banned IRQs of a "setup" reply. */
export function parseIrqbalanceSetup(text: string): number[] {
  const head = text.split(' BANNED ')[0] ?? '';
  if (!/^SLEEP \d+/.test(text.trim())) throw new NumakitError(`irqbalance answered '${text.slice(0, 60)}' to setup`);
  return [...head.matchAll(/\bIRQ (\d+) LOAD/g)].map((m) => Number(m[1])).sort((a, b) => a - b);
}

/** The request that makes `irqs` the banned set. */
export function banRequest(irqs: readonly number[]): string {
  return `settings ban irqs ${irqs.length === 0 ? 'NONE' : irqs.join(' ')}`;
}

/** The socket of the running irqbalance, or null (not running, no socket: an older irqbalance). */
export function irqbalanceSocket(root: SysRoot): string | null {
  if (!root.isReal) return null;
  let names: string[];
  try {
    names = readdirSync(rootPath(root, 'run/irqbalance'));
  } catch {
    return null; // no directory: irqbalance does not run (or predates the socket)
  }
  for (const n of names) {
    const m = /^irqbalance(\d+)\.sock$/.exec(n);
    if (m && alive(Number(m[1]))) return rootPath(root, `run/irqbalance/${n}`);
  }
  return null;
}

export function openIrqbalance(root: SysRoot): IrqbalanceControl | null {
  const path = irqbalanceSocket(root);
  if (path === null) return null;
  const ask = (req: string) => {
    try {
      // irqbalance answers from its main loop, after a rescan in progress: seconds on a loaded machine.
      return unixRequest(path, req, 30_000);
    } catch (e) {
      throw new NumakitError(`irqbalance socket ${path}: '${req}' failed: ${(e as Error).message}`);
    }
  };
  return {
    banned: () => parseIrqbalanceSetup(ask('setup')),
    setBanned(irqs) {
      ask(banRequest(irqs));
      const now = parseIrqbalanceSetup(ask('setup'));
      if (now.join(',') !== [...irqs].sort((a, b) => a - b).join(','))
        throw new NumakitError(
          `irqbalance: asked to ban IRQs ${irqs.join(',') || 'none'} but it bans ${now.join(',') || 'none'}`,
        );
    },
  };
}
