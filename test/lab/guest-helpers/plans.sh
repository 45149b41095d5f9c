# shellcheck shell=bash
# Sourced by the sections of test/lab/plans.lab.test.ts in a guest whose PID 1 is systemd: a
# plan installed by its own PLAN.md blocks, its units observed from /proc, rolled back. Prints
# KEY=VALUE lines the test parses; every wait has a hard limit. Under TCG on a busy host every
# process costs about a second: the helpers use bash builtins, and one awk for what /proc holds.

# The lines of PLAN.md's block NAME, as PLAN.md says to extract them.
block() { sed -n "/^\`\`\`sh numakit:$1\$/,/^\`\`\`\$/{//!p}" PLAN.md; }

# Runs block NAME with bash -e, prints NAME_rc= and its stderr's last lines on failure.
run_block() {
  local rc=0
  block "$1" | bash -e 2>"/run/block-$1.err" || rc=$?
  echo "${1}_rc=$rc"
  [ "$rc" = 0 ] || tail -n 5 "/run/block-$1.err" | sed "s/^/${1}_err: /"
}

# Until COMMAND succeeds, at most SECONDS: tried at once, then every second (a command that
# starts a client costs about that itself); prints WHAT_s= (or WHAT_s=timeout).
wait_for() {
  local what=$1 limit=$2 t0=$SECONDS
  shift 2
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS - t0 >= limit)); then
      echo "${what}_s=timeout"
      return 1
    fi
    sleep 1
  done
  echo "${what}_s=$((SECONDS - t0))"
}

# One line per unit: its threads, the distinct Cpus_allowed_list of them, the distinct memory
# policies of the anonymous and shared-anonymous mappings of its processes (heaps, buffer pools;
# not the page cache of files read before it started) and their pages per node, summed. One
# systemctl for the units' cgroups, one awk for every thread's status and every numa_maps; a
# thread or process that ended meanwhile is skipped.
observe() {
  systemctl show -p Id -p ControlGroup "$@" | awk '
    function unit_line(unit, dir,    f, t, l, a, b, k, i, threads, cpus, seen, pid, pol, pages, p, s) {
      f = dir "/cgroup.threads"
      while ((getline t < f) > 0) {
        threads++
        s = "/proc/" t "/status"
        while ((getline l < s) > 0)
          if (l ~ /^Cpus_allowed_list:/) {
            split(l, a)
            if (!(a[2] in seen)) { seen[a[2]] = 1; cpus = cpus (cpus == "" ? "" : " ") a[2] }
          }
        close(s)
      }
      close(f)
      f = dir "/cgroup.procs"
      while ((getline pid < f) > 0) {
        s = "/proc/" pid "/numa_maps"
        while ((getline l < s) > 0) {
          if (l ~ / file=/ && l !~ / file=\/dev\/zero/ && l !~ /SYSV/ && l !~ /memfd:/) continue
          k = split(l, a, " ")
          pol[a[2]] = 1
          for (i = 3; i <= k; i++) if (a[i] ~ /^N[0-9]+=/) { split(a[i], b, "="); pages[b[1]] += b[2] }
        }
        close(s)
      }
      close(f)
      p = ""; for (k in pol) p = p (p == "" ? "" : ",") k
      s = ""; for (k in pages) s = s " " k "=" pages[k]
      printf "unit=%s threads=%d cpus=%s policy=%s pages=%s\n", unit, threads, cpus, p, s
    }
    function flush() { if (id != "") unit_line(id, "/sys/fs/cgroup" cg); id = ""; cg = "" }
    /^Id=/ { id = substr($0, 4); sub(/\.service$/, "", id) }
    /^ControlGroup=/ { cg = substr($0, 14) }
    /^$/ { flush() }
    END { flush() }'
}

# What the directories a plan writes to hold (paths and modes), sorted: the plans' own trees
# under /opt and /opt's first level, not the rest of a host's /opt. A directory the host lacks
# is no error (find fails on it, and the caller may run under set -e).
host_state() {
  {
    find /etc/systemd/system /etc/postgresql /etc/mysql /etc/redis /etc/numakit /usr/local/bin /usr/local/sbin \
      /opt/spark /opt/numa-java -printf '%p %m\n' || :
    find /opt -maxdepth 1 -printf '%p %m\n' || :
  } 2>/dev/null | sort
}

# host_same=yes when host_state is what setup saved, else no and the first lines that differ.
host_same() {
  host_state >/run/plans-host-after
  if cmp -s /run/plans-host-before /run/plans-host-after; then
    echo host_same=yes
  else
    echo host_same=no
    diff /run/plans-host-before /run/plans-host-after | head -n 8 | sed 's/^/host_diff: /'
  fi
}

# The guest's clock (seconds since boot) at a phase of a section: at_NAME=.
at() {
  local up rest
  read -r up rest </proc/uptime
  echo "at_$1=$up"
}

# after_UNIT=ENABLED/ACTIVE for each unit, from one systemctl (a unit whose file is gone reads
# as "/inactive").
after_state() {
  local k v id='' en='' ac=''
  { systemctl show -p Id -p UnitFileState -p ActiveState "$@"; echo; } | while IFS='=' read -r k v; do
    case $k in
      Id) id=${v%.service} ;;
      UnitFileState) en=$v ;;
      ActiveState) ac=$v ;;
      '')
        [ -z "$id" ] || echo "after_$id=$en/$ac"
        id='' en='' ac=''
        ;;
    esac
  done
}
