// Decision -> files (PLAN.md last). One exhaustive switch over the planners' union.
import type { PlanDecision } from '../../policy/plan/index.js';
import type { PlanFile } from '../../policy/plan/types.js';
import { renderPlanMd, type PlanDoc } from './plan_md.js';
import { renderSparkStandalone } from './spark_standalone.js';
import { sparkStandaloneDoc } from './spark_standalone_doc.js';
import { dbDoc, renderDb } from './db.js';
import { jvmDoc, renderJvm } from './jvm.js';
import { redisDoc, renderRedis } from './redis.js';
import { renderService, serviceDoc } from './service.js';
import { renderSparkK8s, sparkK8sDoc } from './spark_k8s.js';
import { renderSparkYarn, sparkYarnDoc } from './spark_yarn.js';

async function filesAndDoc(d: PlanDecision): Promise<{ files: PlanFile[]; doc: PlanDoc }> {
  switch (d.kind) {
    case 'spark-standalone':
      return { files: renderSparkStandalone(d), doc: sparkStandaloneDoc(d) };
    case 'spark-yarn':
      return { files: renderSparkYarn(d), doc: sparkYarnDoc(d) };
    case 'spark-k8s':
      // The YAML writer only here: the package costs about 25 ms of CPU to load, more than
      // discovery and the plan of a small machine together.
      return { files: renderSparkK8s(d, (await import('yaml')).stringify), doc: sparkK8sDoc(d) };
    case 'db':
      return { files: renderDb(d), doc: dbDoc(d) };
    case 'redis':
      return { files: renderRedis(d), doc: redisDoc(d) };
    case 'jvm':
      return { files: renderJvm(d), doc: jvmDoc(d) };
    case 'service':
      return { files: renderService(d), doc: serviceDoc(d) };
  }
}

/** Every file of the plan, PLAN.md last (its path is relative: it is not installed). */
export async function renderPlan(d: PlanDecision): Promise<PlanFile[]> {
  const { files, doc } = await filesAndDoc(d);
  return [...files, { path: 'PLAN.md', content: renderPlanMd(d, doc, files), mode: 0o644, about: 'this plan' }];
}

/** The plan as one text: each file under a header line, for printing without --out. */
export function renderPlanText(files: readonly PlanFile[]): string {
  return files.map((f) => `==> ${f.path} (mode ${f.mode.toString(8).padStart(4, '0')}) <==\n${f.content}`).join('\n');
}
