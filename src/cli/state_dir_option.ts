// --state-dir, as every command that writes or reads the journal declares it.
import { DEFAULT_STATE_DIR } from '../runtime/state_dir.js';

/** The option's declaration; `what` is the first words of its help. */
export function stateDirOption(what = 'journal directory') {
  return { type: 'string', value: 'DIR', complete: 'dir', help: `${what} (default ${DEFAULT_STATE_DIR})` } as const;
}

/** The journal directory the user gave, else the default. */
export const stateDirOf = (values: { readonly 'state-dir'?: string }): string =>
  values['state-dir'] ?? DEFAULT_STATE_DIR;
