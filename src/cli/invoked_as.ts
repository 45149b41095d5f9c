// How the user ran numakit, so that the commands the overview suggests can be pasted as they
// are: `npm start` in a clone has no `numakit` on PATH (the README's first command), so there
// they read `npm start -- ARGS`; otherwise `numakit ARGS`.

/** The words that run numakit the way this process was run. */
export function invokedAs(env: NodeJS.ProcessEnv = process.env): string {
  return env['npm_lifecycle_event'] === 'start' && env['npm_package_name'] === 'numakit' ? 'npm start --' : 'numakit';
}
