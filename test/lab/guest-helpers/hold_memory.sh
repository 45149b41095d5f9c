#!/bin/bash
# The service workload of test/lab/plans.lab.test.ts, a program with no port or data directory,
# so one copy runs per node: holds MIB (default 8) mebibytes of touched heap in a shell variable,
# prints "touched MIB MiB" and sleeps, so /proc/PID/numa_maps shows where its heap landed.
mib=${1:-8}
held=$(head -c $((mib << 20)) /dev/zero | tr '\0' x)
echo "touched $((${#held} >> 20)) MiB"
while :; do sleep 3600; done
