// Schema checks for the Kubernetes objects a plan writes. API objects (Pod, PersistentVolume,
// StorageClass) use the kubernetes-models package, which validates against the Kubernetes
// OpenAPI JSON schemas. KubeletConfiguration is not an API-server object and has no schema
// there, so it is checked with a zod schema of exactly the fields numakit emits, with the names,
// types and enum values of kubelet.config.k8s.io/v1beta1.
import { parseAllDocuments } from 'yaml';
import { z } from 'zod';
import { Pod } from 'kubernetes-models/v1/Pod';
import { PersistentVolume } from 'kubernetes-models/v1/PersistentVolume';
import { StorageClass } from 'kubernetes-models/storage.k8s.io/v1/StorageClass';

const quantity = z.string().regex(/^\d+(\.\d+)?(Ki|Mi|Gi|Ti|m)?$/);

export const KubeletConfigurationSchema = z
  .object({
    apiVersion: z.literal('kubelet.config.k8s.io/v1beta1'),
    kind: z.literal('KubeletConfiguration'),
    cpuManagerPolicy: z.enum(['none', 'static']),
    cpuManagerPolicyOptions: z
      .partialRecord(
        z.enum(['full-pcpus-only', 'distribute-cpus-across-numa', 'align-by-socket']),
        z.enum(['true', 'false']),
      )
      .optional(),
    topologyManagerPolicy: z.enum(['none', 'best-effort', 'restricted', 'single-numa-node']),
    topologyManagerScope: z.enum(['container', 'pod']),
    memoryManagerPolicy: z.enum(['None', 'Static']),
    reservedSystemCPUs: z.string().regex(/^\d+(-\d+)?(,\d+(-\d+)?)*$/),
    systemReserved: z.partialRecord(z.enum(['cpu', 'memory', 'ephemeral-storage', 'pid']), quantity),
    evictionHard: z.partialRecord(
      z.enum(['memory.available', 'nodefs.available', 'imagefs.available', 'nodefs.inodesFree']),
      quantity,
    ),
    reservedMemory: z
      .array(z.object({ numaNode: z.number().int().min(0), limits: z.object({ memory: quantity }).strict() }).strict())
      .min(1),
  })
  .strict();

const miB = (q: string) => (q.endsWith('Gi') ? Number(q.slice(0, -2)) * 1024 : Number(q.slice(0, -2)));

/** Errors in one YAML file of a plan ('' when every document is valid). */
export function checkManifests(text: string): string {
  const errs: string[] = [];
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length > 0) {
      errs.push(doc.errors.map((e) => e.message).join('; '));
      continue;
    }
    const obj = doc.toJS() as { kind?: string };
    try {
      if (obj.kind === 'Pod') new Pod(obj as never).validate();
      else if (obj.kind === 'PersistentVolume') new PersistentVolume(obj as never).validate();
      else if (obj.kind === 'StorageClass') new StorageClass(obj as never).validate();
      else if (obj.kind === 'KubeletConfiguration') {
        const k = KubeletConfigurationSchema.parse(obj);
        // The Memory Manager refuses to start unless reservedMemory adds up to the reservations.
        const sum = k.reservedMemory.reduce((a, r) => a + miB(r.limits.memory), 0);
        const want = miB(k.systemReserved.memory ?? '0Mi') + miB(k.evictionHard['memory.available'] ?? '0Mi');
        if (sum !== want) errs.push(`reservedMemory adds up to ${sum}Mi, systemReserved + evictionHard is ${want}Mi`);
      } else errs.push(`unexpected kind ${String(obj.kind)}`);
    } catch (e) {
      errs.push(`${obj.kind}: ${(e as Error).message}`);
    }
  }
  return errs.join('\n');
}
