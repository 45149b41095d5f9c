// Types of bench/fleet_hosts.mjs for the TypeScript tests that use it.
export declare const MIX: [string, number][];
/** Writes `count` synthetic snapshot archives into `dir`; returns their host names in order. */
export declare function writeSyntheticFleet(dir: string, count: number): string[];
