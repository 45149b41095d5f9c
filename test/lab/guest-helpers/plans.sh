# shellcheck shell=bash
# Sourced by the sections of test/lab/plans.lab.ts in a guest whose PID 1 is systemd: a
# plan installed by its own PLAN.md blocks, its units observed from /proc, rolled back. Prints
# KEY=VALUE lines the test parses; every wait has a hard limit.

# The lines of PLAN.md's block NAME, as PLAN.md says to extract them.
block() { sed -n "/^\`\`\`sh numakit:$1\$/,/^\`\`\`\$/{//!p}" PLAN.md; }

# Runs block NAME with bash -e, prints NAME_rc= and its stderr's last lines on failure.
run_block() {
  local rc=0
  block "$1" | bash -e 2>"/run/block-$1.err" || rc=$?
  echo "${1}_rc=$rc"
  [ "$rc" = 0 ] || sed "s/^/${1}_err: /" "/run/block-$1.err" | tail -n 5
}

# Until COMMAND succeeds, at most SECONDS, trying every half second; prints WHAT_s= (or
# WHAT_s=timeout).
wait_for() {
  local what=$1 limit=$2 t0=$SECONDS
  shift 2
  while ((SECONDS - t0 < limit)); do
    if "$@" >/dev/null 2>&1; then
      echo "${what}_s=$((SECONDS - t0))"
      return 0
    fi
    sleep 0.5
  done
  echo "${what}_s=timeout"
  return 1
}

cgroup_of() { echo "/sys/fs/cgroup$(systemctl show -p ControlGroup --value "$1")"; }

# One line per unit: its threads, the distinct Cpus_allowed_list of them, the distinct memory
# policies of the anonymous and shared-anonymous mappings of its processes (heaps, buffer pools;
# not the page cache of files read before it started) and their pages per node, summed.
observe() {
  local unit=$1 cg threads cpus
  cg=$(cgroup_of "$unit")
  threads=$(wc -l <"$cg/cgroup.threads")
  # One awk for every thread's status (a process per thread costs seconds under TCG); a thread
  # that ended meanwhile is skipped.
  # shellcheck disable=SC2046
  cpus=$(awk '/^Cpus_allowed_list:/ { print $2 }' $(sed 's#.*#/proc/&/status#' "$cg/cgroup.threads") 2>/dev/null | sort -u | paste -sd' ')
  # shellcheck disable=SC2046
  awk -v unit="$unit" -v threads="$threads" -v cpus="$cpus" '
    $0 !~ / file=/ || / file=\/dev\/zero/ || /SYSV/ || /memfd:/ {
      pol[$2] = 1
      for (i = 3; i <= NF; i++) if ($i ~ /^N[0-9]+=/) { split($i, a, "="); n[a[1]] += a[2] }
    }
    END {
      p = ""; for (k in pol) p = p (p == "" ? "" : ",") k
      s = ""; for (k in n) s = s " " k "=" n[k]
      printf "unit=%s threads=%s cpus=%s policy=%s pages=%s\n", unit, threads, cpus, p, s
    }' $(sed 's#^#/proc/#; s#$#/numa_maps#' "$cg/cgroup.procs") 2>/dev/null
}

# What /etc/systemd/system and the servers' configuration directories hold, as one digest.
host_state() {
  find /etc/systemd/system /etc/postgresql /etc/mysql /etc/redis /opt /usr/local/bin /usr/local/sbin \
    -printf '%p %m\n' 2>/dev/null | sort | md5sum | cut -c1-16
}

# The guest's clock (seconds since boot) at a phase of a section: AT_NAME=.
at() { echo "at_$1=$(cut -d' ' -f1 /proc/uptime)"; }
