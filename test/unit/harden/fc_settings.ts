// fast-check settings shared by the property tests: 10,000 inputs per parser by default (CI),
// a random seed printed by each test; NUMAKIT_FC_SEED=N replays a run, NUMAKIT_FC_RUNS=N
// changes the count. Shrinking is fast-check's default (on).
export const RUNS = Number(process.env['NUMAKIT_FC_RUNS'] ?? 10_000);
export const SEED = Number(process.env['NUMAKIT_FC_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
