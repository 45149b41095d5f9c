// --profile and --placement as doctor, apply and plan document them: one text from the table.
import { ALIASES } from '../policy/knowledge/profiles.js';
import { TABLE } from '../policy/knowledge/table.js';
import { CLASSES } from '../policy/knowledge/types.js';

export const PROFILE_NAMES = [...CLASSES, ...Object.keys(ALIASES)];

export const PROFILE_HELP = `${CLASSES.map((n) => `  ${n.padEnd(15)} ${TABLE[n].summary}`).join('\n')}
  aliases: ${Object.entries(ALIASES)
    .map(([k, v]) => `${k} = ${v}`)
    .join(', ')}; what each wants: docs/profiles.md`;

export const PLACEMENT_HELP = `where the workload's largest process runs, for the profiles whose advice
depends on it (general, database, jvm): bound (numakit plan/run, numactl,
NUMAPolicy=, CPUAffinity=, a cpuset) or unpinned. Default: detected from
the processes of 1 GiB or more; unknown without them (AutoNUMA is then
left alone and not judged)`;
