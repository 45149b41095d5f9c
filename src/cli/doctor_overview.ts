// The overview's doctor section: the most serious findings under the general profile, one line
// each, and how to see the rest.
import { isProblem } from '../model/finding.js';
import type { Topology } from '../model/topology.js';
import type { Context } from './context.js';

const SHOW = 5;

export async function doctorOverview(ctx: Context, topology: Topology): Promise<{ text: string; data: unknown }> {
  const { gatherDoctorInput } = await import('../discover/doctor_input.js');
  const { runDoctor } = await import('../policy/doctor/rules.js');
  const { doctorProfile } = await import('../policy/doctor/profiles.js');
  const input = await gatherDoctorInput(ctx.root, { topology });
  const problems = runDoctor(input, doctorProfile({ klass: 'general', alias: null }, input)).filter(
    (f) => f.severity === 'critical' || f.severity === 'warning',
  );
  const data = {
    profile: 'general',
    findings: problems.map((f) => ({ id: f.id, rule: f.rule, severity: f.severity, title: f.title })),
  };
  if (problems.length === 0)
    return {
      text: 'doctor: no critical or warning findings (numakit doctor --profile NAME for your workload)\n',
      data,
    };
  const lines = [`doctor: ${problems.length} finding${problems.length === 1 ? '' : 's'} to look at:`];
  for (const f of problems.slice(0, SHOW)) if (isProblem(f)) lines.push(`  ${f.severity.padEnd(8)} ${f.title}`);
  if (problems.length > SHOW) lines.push(`  ... and ${problems.length - SHOW} more`);
  lines.push('  numakit doctor --profile NAME   evidence and fixes for your workload');
  return { text: lines.join('\n') + '\n', data };
}
