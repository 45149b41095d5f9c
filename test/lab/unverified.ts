// Lab files that were written but could not yet be run to their end on a quiet machine (the 2-core
// VM they were written on ran eight engineers at a load average of 20-40, and their guests timed
// out). Until one has passed, it is skipped with this line unless LAB_UNVERIFIED=1, so that an
// unproven guest test cannot fail main's CI; docs/lab.md lists them. Remove the gate from a file
// once it passes.
export function unverifiedLab(what: string): string | false {
  if (process.env['LAB_UNVERIFIED'] === '1') return false;
  return `${what}: written but not yet run to its end on a quiet machine; LAB_UNVERIFIED=1 runs it (docs/lab.md)`;
}
