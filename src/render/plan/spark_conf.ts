// spark-defaults.conf and --conf lists from ordered (key, value) pairs, plus the JVM options the
// field reports settled on for NUMA-bound executors.
export type SparkConf = readonly (readonly [key: string, value: string])[];

export const EXECUTOR_JAVA_OPTS =
  '-XX:+UseG1GC -XX:MaxGCPauseMillis=200 -XX:+UseNUMA -XX:+AlwaysPreTouch -XX:InitiatingHeapOccupancyPercent=35 -XX:+ParallelRefProcEnabled';
export const DRIVER_JAVA_OPTS = '-XX:+UseG1GC';

export function renderSparkDefaults(comment: string[], conf: SparkConf): string {
  const w = Math.max(...conf.map(([k]) => k.length)) + 2;
  return `${[...comment.map((l) => `# ${l}`.trimEnd()), '', ...conf.map(([k, v]) => `${k.padEnd(w)}${v}`)].join('\n')}\n`;
}

/** `--conf key=value \` lines for a submit script; values with spaces are double-quoted (they hold no metacharacters). */
export function confArgs(conf: SparkConf, indent = '  '): string[] {
  return conf.map(([k, v]) => `${indent}--conf ${/\s/.test(v) ? `"${k}=${v}"` : `${k}=${v}`} \\`);
}

/** The submit script: spark-submit with the plan's confs; the app jar, class and args come from the caller. */
export function renderSubmitScript(header: string, sparkHome: string, master: string, conf: SparkConf): string {
  return [
    header.trimEnd(),
    '',
    'if [[ $# -lt 2 ]]; then',
    '  echo "usage: $0 APP_JAR MAIN_CLASS [APP_ARGS...]" >&2',
    '  exit 64',
    'fi',
    'app_jar="$1"',
    'main_class="$2"',
    'shift 2',
    '',
    `exec ${sparkHome}/bin/spark-submit \\`,
    `  --master ${master} \\`,
    '  --class "$main_class" \\',
    ...confArgs(conf),
    '  "$app_jar" "$@"',
    '',
  ].join('\n');
}
