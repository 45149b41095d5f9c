// `--variant` values of bench ab. Pure.
//   NAME=            the workload as it is (no binding)
//   NAME=OPTIONS     numactl options as numakit run takes them: '--cpunodebind=0 --membind=1'
//   agent[=OPTIONS]  with `numakit agent` running (NAME=agent or NAME=agent:OPTIONS too)
//   tuned:PROFILE    an apply profile applied for each run and rolled back after it
// A value that starts with '-' or is 'agent'/'tuned:...' names itself.
import type { ParsedVariant } from '../../model/bench.js';
import { UsageError } from '../../model/errors.js';
import type { RunArgs } from '../../model/run_args.js';
import { parseRunArgs } from './run_argv.js';

function splitNamed(text: string): [string, string] {
  if (text.startsWith('-') || text === 'agent' || text.startsWith('agent:') || text.startsWith('tuned:'))
    return [text, text];
  const eq = text.indexOf('=');
  if (eq <= 0)
    throw new UsageError(
      `bench ab: --variant '${text}': expected NAME=OPTIONS (e.g. local='--cpunodebind=0 --membind=0'), agent or tuned:PROFILE`,
    );
  return [text.slice(0, eq), text.slice(eq + 1)];
}

export function parseVariant(text: string): ParsedVariant {
  const [name, spec] = splitNamed(text);
  if (!/^[\w.:+=,!\- ]{1,60}$/.test(name))
    throw new UsageError(`bench ab: variant name '${name}': letters, digits, spaces and . _ : + = , ! - only`);
  const words = spec
    .trim()
    .split(/\s+/)
    .filter((w) => w !== '');
  if (words.length === 0) return { name, kind: 'default', spec: '' };
  if (words[0] === 'agent' || words[0]!.startsWith('agent:')) {
    const first = words[0]!.slice('agent:'.length);
    return {
      name,
      kind: 'agent',
      spec,
      agentArgs: [...(first === '' || words[0] === 'agent' ? [] : [first]), ...words.slice(1)],
    };
  }
  if (words[0]!.startsWith('tuned:')) {
    const profile = words[0]!.slice('tuned:'.length);
    if (profile === '' || words.length > 1)
      throw new UsageError(`bench ab: variant '${name}': tuned:PROFILE takes one profile name`);
    return { name, kind: 'tuned', spec, profile };
  }
  let binding: RunArgs;
  try {
    binding = parseRunArgs(words);
  } catch (e) {
    throw new UsageError(`bench ab: variant '${name}': ${(e as Error).message}`);
  }
  if (binding.command.length > 0)
    throw new UsageError(
      `bench ab: variant '${name}': '${binding.command.join(' ')}' is not a numactl option (the workload goes after --)`,
    );
  if (binding.show || binding.hardware || binding.help)
    throw new UsageError(`bench ab: variant '${name}': --show, --hardware and --help print instead of binding`);
  if (binding.memory === undefined && binding.cpus === undefined)
    throw new UsageError(`bench ab: variant '${name}': '${spec}' binds nothing`);
  return { name, kind: 'bind', spec, binding };
}

export function parseVariants(texts: readonly string[]): ParsedVariant[] {
  if (texts.length < 2)
    throw new UsageError(
      "bench ab: give at least two --variant (the first is the baseline), e.g. --variant default= --variant local='--membind=0'",
    );
  const out = texts.map(parseVariant);
  const names = new Set<string>();
  for (const v of out) {
    if (names.has(v.name)) throw new UsageError(`bench ab: two variants are named '${v.name}'`);
    names.add(v.name);
  }
  return out;
}
