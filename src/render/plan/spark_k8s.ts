// Files of a spark-k8s plan: kubelet configuration, executor pod template, local PVs with their
// StorageClass, spark-defaults.conf and the submit script.
import type { SparkK8sDecision } from '../../policy/plan/spark_k8s.js';
import type { PlanFile } from '../../policy/plan/types.js';
import { generatedBy, shellHeader } from './header.js';
import type { PlanDoc } from './plan_md.js';
import { recipeCompare } from './spark_compare.js';
import { EXECUTOR_JAVA_OPTS, renderSparkDefaults, renderSubmitScript, type SparkConf } from './spark_conf.js';

const W = 'spark-k8s';
const STORAGE_CLASS = 'numakit-local-nvme';
/** The YAML writer (the `yaml` package's stringify): loaded by renderPlan for a spark-k8s plan only. */
export type YamlStringify = (value: unknown) => string;

const yamlDoc = (d: SparkK8sDecision, stringify: YamlStringify, objs: unknown[]) =>
  `${generatedBy(W, d.machine.label)
    .map((l) => `# ${l}`)
    .join('\n')}\n${objs.map((o) => stringify(o)).join('---\n')}`;

export function kubeletConfig(d: SparkK8sDecision): Record<string, unknown> {
  return {
    apiVersion: 'kubelet.config.k8s.io/v1beta1',
    kind: 'KubeletConfiguration',
    cpuManagerPolicy: 'static',
    cpuManagerPolicyOptions: { 'full-pcpus-only': 'true' },
    topologyManagerPolicy: 'single-numa-node',
    topologyManagerScope: 'pod',
    memoryManagerPolicy: 'Static',
    reservedSystemCPUs: d.reservedCpus,
    systemReserved: { memory: `${d.systemReservedMi}Mi` },
    evictionHard: { 'memory.available': '100Mi' },
    reservedMemory: d.reservedMemory.map((r) => ({ numaNode: r.node, limits: { memory: `${r.mi}Mi` } })),
  };
}

export function podTemplate(d: SparkK8sDecision): Record<string, unknown> {
  const res = { cpu: `${d.podCpus}`, memory: `${d.podMemoryGi}Gi` };
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { labels: { 'app.kubernetes.io/managed-by': 'numakit-plan' } },
    spec: { containers: [{ name: 'spark-kubernetes-executor', resources: { requests: res, limits: { ...res } } }] },
  };
}

export function localVolumes(d: SparkK8sDecision): Record<string, unknown>[] {
  const sc = {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: STORAGE_CLASS },
    provisioner: 'kubernetes.io/no-provisioner',
    volumeBindingMode: 'WaitForFirstConsumer',
  };
  const pvs = d.volumes.map((v) => ({
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: {
      name: `${d.options.k8sNode}-numa${v.node}-spark-local`,
      labels: { 'numakit.io/numa-node': `${v.node}` },
    },
    spec: {
      capacity: { storage: `${d.options.localSizeGiB}Gi` },
      accessModes: ['ReadWriteOnce'],
      persistentVolumeReclaimPolicy: 'Delete',
      storageClassName: STORAGE_CLASS,
      local: { path: v.path },
      nodeAffinity: {
        required: {
          nodeSelectorTerms: [
            { matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [d.options.k8sNode] }] },
          ],
        },
      },
    },
  }));
  return [sc, ...pvs];
}

export function sparkK8sConf(d: SparkK8sDecision): SparkConf {
  const s = d.sizing;
  const o = d.options;
  const vol = 'spark.kubernetes.executor.volumes.persistentVolumeClaim.spark-local-dir-1';
  const pv: SparkConf =
    d.volumes.length === 0
      ? []
      : [
          [`${vol}.options.claimName`, 'OnDemand'],
          [`${vol}.options.storageClass`, STORAGE_CLASS],
          [`${vol}.options.sizeLimit`, `${o.localSizeGiB}Gi`],
          [`${vol}.mount.path`, '/data/spark-local'],
          [`${vol}.mount.readOnly`, 'false'],
        ];
  return [
    ['spark.kubernetes.namespace', o.namespace],
    ['spark.kubernetes.container.image', o.image],
    ['spark.kubernetes.executor.podTemplateFile', `${o.sparkHome}/conf/executor-pod-template.yaml`],
    ['spark.executor.instances', `${d.instances}`],
    ['spark.executor.cores', `${s.cores}`],
    ['spark.kubernetes.executor.request.cores', `${d.podCpus}`],
    ['spark.kubernetes.executor.limit.cores', `${d.podCpus}`],
    ['spark.executor.memory', `${s.memoryGiB}g`],
    ['spark.executor.memoryOverhead', `${s.overheadGiB}g`],
    ['spark.executor.extraJavaOptions', EXECUTOR_JAVA_OPTS],
    ...pv,
  ];
}

export function renderSparkK8s(d: SparkK8sDecision, stringify: YamlStringify): PlanFile[] {
  const o = d.options;
  const conf = sparkK8sConf(d);
  const files: PlanFile[] = [
    {
      path: '/etc/kubernetes/kubelet.conf.d/50-numakit-numa.conf',
      content: yamlDoc(d, stringify, [kubeletConfig(d)]),
      mode: 0o644,
      about: 'kubelet: CPU Manager static, Topology Manager single-numa-node (pod), Memory Manager Static',
    },
    {
      path: `${o.sparkHome}/conf/executor-pod-template.yaml`,
      content: yamlDoc(d, stringify, [podTemplate(d)]),
      mode: 0o644,
      about: `Guaranteed executor pod: ${d.podCpus} CPUs, ${d.podMemoryGi}Gi`,
    },
  ];
  if (d.volumes.length > 0)
    files.push({
      path: '/etc/numakit/spark-local-pv.yaml',
      content: yamlDoc(d, stringify, localVolumes(d)),
      mode: 0o644,
      about: `StorageClass and ${d.volumes.length} local PVs on the nodes' NVMe (kubectl apply -f)`,
    });
  files.push({
    path: `${o.sparkHome}/conf/spark-defaults.conf`,
    content: renderSparkDefaults(generatedBy(W, d.machine.label), conf),
    mode: 0o644,
    about: 'executor size, pod template, local dir volumes',
  });
  files.push({
    path: '/usr/local/bin/spark-submit-numa',
    content: renderSubmitScript(
      shellHeader(W, d.machine.label, [
        "Submits an application to Kubernetes with this plan's executor pods.",
        'Set K8S_API to the API server (e.g. https://10.0.0.1:6443).',
        'usage: spark-submit-numa APP_JAR MAIN_CLASS [APP_ARGS...]',
      ]),
      o.sparkHome,
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion in the script, not a JS template
      'k8s://"${K8S_API:?set K8S_API to the API server URL}"',
      conf,
    ),
    mode: 0o755,
    about: "spark-submit to Kubernetes with the plan's confs",
  });
  return files;
}

export function sparkK8sDoc(d: SparkK8sDecision): PlanDoc {
  return {
    compare: recipeCompare(d.sizing, { overheadPct: d.options.overheadPct, oneNode: d.machine.facts.nodes === 1 }),
    workload: W,
    intro: `Executors as Guaranteed pods of ${d.podCpus} whole CPUs (${d.sizing.cores} physical cores) and ${d.podMemoryGi}Gi, which fit one NUMA node; the kubelet's Topology Manager (single-numa-node, pod scope) admits a pod only when its CPUs (CPU Manager static) and memory (Memory Manager Static) come from one node. Kubernetes node ${d.options.k8sNode} is this machine.`,
    layout: [
      ['NUMA node', 'reserved CPUs', 'reserved memory', 'executor pods', 'local PV'],
      ...d.sizing.executors.map((e) => [
        `${e.share.node}`,
        e.share.coreGroups[0]?.join(',') ?? '-',
        `${d.reservedMemory.find((r) => r.node === e.share.node)!.mi}Mi`,
        `1 x ${d.podCpus} CPUs, ${d.podMemoryGi}Gi`,
        d.volumes.find((v) => v.node === e.share.node)?.path ?? 'none',
      ]),
    ],
    prepare: [
      `Drain the node (\`kubectl drain ${d.options.k8sNode} --ignore-daemonsets\`): changing the CPU and Memory Manager policies needs the old state files removed.`,
      'Stop the kubelet and remove /var/lib/kubelet/cpu_manager_state and /var/lib/kubelet/memory_manager_state. The kubelet settings are a drop-in for kubelet 1.30 or later started with --config-dir=/etc/kubernetes/kubelet.conf.d; for older kubelets merge them into its config file (/var/lib/kubelet/config.yaml).',
      ...(d.volumes.length > 0
        ? [`Mount each NVMe under ${d.options.dataDir}/nodeN and create the spark_local directories the PVs point at.`]
        : []),
    ],
    enable: [
      'Start the kubelet, `kubectl uncordon` the node, `kubectl apply -f /etc/numakit/spark-local-pv.yaml` if present, then submit a job.',
    ],
    rollback: [
      'Drain the node, stop the kubelet, remove the drop-in (or restore the previous config.yaml), remove the two state files again, start the kubelet and uncordon.',
      'Remove the pod template and the volume confs from spark-defaults.conf; `kubectl delete -f /etc/numakit/spark-local-pv.yaml`.',
    ],
    checks: [
      '`kubectl get pod EXECUTOR -o jsonpath={.status.qosClass}`: Guaranteed.',
      'On the node: `cat /var/lib/kubelet/cpu_manager_state`: each executor container has CPUs of one NUMA node.',
      'Pods rejected with TopologyAffinityError mean a pod does not fit one node: lower --cores-fraction or --memory-fraction.',
      `\`numakit stat\` and \`${d.tuning.doctor}\` on the node.`,
    ],
  };
}
