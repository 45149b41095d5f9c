// What every command gets: the root to read, output streams, and the global flags.
import type { SysRoot } from '../sysfs/root.js';

export interface Context {
  /** The tree to read: "/" or a snapshot/example. Commands that write call requireRealRoot. */
  readonly root: SysRoot;
  /** True when --root or --example was given (a command may say what it reads). */
  readonly rootGiven: boolean;
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  /** Colour allowed: stdout is a TTY and NO_COLOR is unset. */
  readonly color: boolean;
  readonly isTTY: boolean;
}
