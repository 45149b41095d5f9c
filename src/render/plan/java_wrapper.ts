// The numactl `java` wrapper of field report 000, made strict: it refuses to run when it is not
// told its node (the report's version silently fell back to node 0) or when the CPU list is not
// a plain list, and execs the real java so signals and exit codes pass through.
export function renderJavaWrapper(header: string, realJava: string): string {
  return `${header.trimEnd()}
# Put this directory's parent in JAVA_HOME of a process (a Spark worker unit) and every java it
# starts runs bound to SPARK_NUMA_NODE: its CPUs (SPARK_CPU_LIST, else the whole node) and memory.

real_java=${realJava}
node="\${SPARK_NUMA_NODE:-}"
cpus="\${SPARK_CPU_LIST:-}"

if [[ ! "$node" =~ ^[0-9]+$ ]]; then
  echo "numa-java: SPARK_NUMA_NODE is not a node number ('$node'); refusing to guess a node" >&2
  exit 64
fi
if [[ ! -x "$real_java" ]]; then
  echo "numa-java: $real_java is not executable; fix real_java in $0" >&2
  exit 69
fi
if [[ -n "$cpus" ]]; then
  if [[ ! "$cpus" =~ ^[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*$ ]]; then
    echo "numa-java: SPARK_CPU_LIST '$cpus' is not a CPU list such as 0-15,32-47" >&2
    exit 64
  fi
  exec numactl --physcpubind="$cpus" --membind="$node" "$real_java" "$@"
fi
exec numactl --cpunodebind="$node" --membind="$node" "$real_java" "$@"
`;
}
