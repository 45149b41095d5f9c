// Where numakit keeps its journal (apply's change sets, the agent's) unless --state-dir says.
export const DEFAULT_STATE_DIR = '/var/lib/numakit';
