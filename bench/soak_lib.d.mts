// Types of bench/soak_lib.mjs for the TypeScript tests that use it.
export interface SoakSample {
  readonly t: number;
  readonly [series: string]: number | null;
}
export interface SoakRun {
  readonly seconds: number;
  readonly rate: number;
  readonly scrapers: number;
  readonly slow: number;
  readonly samples: readonly SoakSample[];
  readonly [k: string]: unknown;
}
export interface SoakLimit {
  readonly key: string;
  readonly unit: string;
  readonly scale: number;
  readonly kind: 'growth' | 'ratio' | 'max';
  readonly floor?: boolean;
  readonly rate?: boolean;
  readonly tol: number;
  readonly perHour?: number;
  readonly factor?: number;
}
export interface SoakRow {
  readonly key: string;
  readonly unit: string;
  readonly start?: number;
  readonly end?: number;
  readonly perHour?: number;
  readonly seen?: number;
  readonly limit: string;
  readonly pass: boolean;
  readonly note?: string;
}
export interface SoakVerdict {
  readonly rows: SoakRow[];
  readonly pass: boolean;
  readonly warmupSeconds: number;
}
export declare const LIMITS: SoakLimit[];
export declare function warmupSeconds(seconds: number): number;
export declare function slope(points: readonly { t: number; y: number }[]): number;
export declare function floor(points: readonly { t: number; y: number }[], k?: number): { t: number; y: number }[];
export declare function analyse(run: SoakRun, limits?: readonly SoakLimit[]): SoakVerdict;
export declare function renderTable(a: SoakVerdict): string;
export declare function renderSvg(run: SoakRun, a: SoakVerdict, limits?: readonly SoakLimit[]): string;
export declare const SHORT_WINDOW: number;
export declare function parseSoakOutput(stdout: string): { run: SoakRun; errors: string[] } | null;
