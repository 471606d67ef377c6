#!/usr/bin/env bash
# startup.sh: what one kproduce run with no input costs, side by side with
# kcat -P: the instructions it executes (valgrind's cachegrind, GOGC=off),
# and the wall time and peak RSS of RUNS runs (/usr/bin/time), against a
# local dev broker that drops what it is sent. Shell scripts that call
# kproduce once per line, and CI smoke tests, pay this on every call.
#
# Usage: scripts/startup.sh [RUNS]          (default 50 runs)
# Env:   PORT             the dev broker's port (default 19492)
#        STARTUP_BASE     another kproduce binary to measure alongside
#                         ("base"), e.g. a build of main, for before/after
#        STARTUP_PROFILE=1  also list the costliest package initialisers
#                         of this checkout's build (GODEBUG=inittrace=1)
#
# Every command is `TOOL -b BROKER -t bench ... </dev/null`; kproduce runs
# with -o none, kcat with -P. The tools run in turns, one run each per
# round. Wall is measured around /usr/bin/time, which also gives the peak
# RSS; read the instruction counts first, wall times are noisy on a shared
# machine. Sizes are of a plain build and of a release-style build
# (-trimpath -ldflags '-s -w').
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-50}
port=${PORT:-19492}
for tool in valgrind /usr/bin/time python3; do
  command -v "$tool" >/dev/null || { echo "startup.sh needs $tool (apt-get install -y valgrind time python3)" >&2; exit 2; }
done
work=$(mktemp -d)
trap 'kill ${bpid:-} 2>/dev/null || true; rm -rf "$work"' EXIT
(cd "$root" && CGO_ENABLED=0 go build -o "$work/kproduce" ./cmd/kproduce &&
  CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$work/kproduce-release" ./cmd/kproduce &&
  go build -o "$work/devbroker" ./scripts/devbroker)
"$work/devbroker" -port "$port" -topics bench -blackhole >"$work/broker.log" 2>&1 &
bpid=$!
for _ in $(seq 100); do grep -q ready "$work/broker.log" && break; sleep 0.1; done
grep -q ready "$work/broker.log" || { echo "dev broker did not start: $(cat "$work/broker.log")" >&2; exit 1; }
broker=127.0.0.1:$port

names=(); cmds=(); sizes=()
if [[ -n ${STARTUP_BASE:-} ]]; then
  names+=(base); cmds+=("$STARTUP_BASE -b $broker -t bench -o none"); sizes+=("$(stat -c %s "$STARTUP_BASE")")
fi
names+=(kproduce); cmds+=("$work/kproduce -b $broker -t bench -o none")
sizes+=("$(stat -c %s "$work/kproduce") $(stat -c %s "$work/kproduce-release")")
if command -v kcat >/dev/null; then
  names+=(kcat); cmds+=("kcat -b $broker -t bench -P"); sizes+=("-")
fi

# instructions: one run each under cachegrind
for i in "${!names[@]}"; do
  # shellcheck disable=SC2086 # the command is split into its words
  # cpu.rdtscp=off: the Go runtime's clock reads without RDTSCP, which
  # valgrind does not emulate (SIGILL in runtime.cputicks otherwise).
  GODEBUG=cpu.rdtscp=off GOGC=off valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null ${cmds[$i]} </dev/null >/dev/null 2>"$work/cg"
  instr=$(grep -oE 'I +refs: +[0-9,]+' "$work/cg" | grep -oE '[0-9,]+$' | tr -d ,)
  echo "${names[$i]} $instr ${sizes[$i]}" >>"$work/static"
done

# wall and peak RSS: RUNS rounds, the tools in turns
for r in $(seq "$runs"); do
  for i in "${!names[@]}"; do
    start=$EPOCHREALTIME
    # shellcheck disable=SC2086
    /usr/bin/time -f '%M' -o "$work/t" ${cmds[$i]} </dev/null >/dev/null 2>"$work/err" ||
      { echo "${names[$i]} failed (round $r): $(tail -3 "$work/err")" >&2; exit 1; }
    end=$EPOCHREALTIME
    echo "${names[$i]} $start $end $(tail -1 "$work/t")" >>"$work/runs"
  done
done

python3 - "$work/static" "$work/runs" "$runs" <<'PY'
import statistics as st, sys
static, runs, n = sys.argv[1], sys.argv[2], sys.argv[3]
rows = {}
for line in open(static):
    f = line.split()
    rows[f[0]] = {"instr": int(f[1]), "sizes": f[2:]}
for line in open(runs):
    name, start, end, rss = line.split()
    r = rows[name]
    r.setdefault("wall", []).append((float(end) - float(start)) * 1000)
    r.setdefault("rss", []).append(int(rss) / 1024)
def mib(s):
    return "-" if s == "-" else f"{int(s) / 1048576:.1f}"
print(f"{n} runs each with no input; instructions of one run (cachegrind, GOGC=off)")
print(f"{'tool':10} {'instr_M':>8} {'wall_med_ms':>11} {'wall_p90_ms':>11} {'rss_med_MiB':>11} {'rss_max_MiB':>11} {'size_MiB':>8} {'release_MiB':>11}")
for name, r in rows.items():
    w = sorted(r["wall"])
    p90 = w[min(len(w) - 1, int(len(w) * 0.9))]
    sizes = r["sizes"] + ["-"] * (2 - len(r["sizes"]))
    print(f"{name:10} {r['instr'] / 1e6:8.1f} {st.median(w):11.1f} {p90:11.1f} {st.median(r['rss']):11.1f} {max(r['rss']):11.1f} "
          f"{mib(sizes[0]):>8} {mib(sizes[1]):>11}")
PY

if [[ ${STARTUP_PROFILE:-} == 1 ]]; then
  # The Go runtime's own account of each package initialiser (clock time
  # and bytes allocated), the median of 10 runs: callgrind's inclusive
  # counts misattribute the regexp compilations of some initialisers.
  for _ in $(seq 10); do
    GODEBUG=inittrace=1 "$work/kproduce" -b "$broker" -t bench -o none </dev/null 2>&1 >/dev/null | grep '^init ' >>"$work/inittrace" || true
  done
  python3 - "$work/inittrace" <<'PY'
import collections, statistics as st, sys
clock, heap = collections.defaultdict(list), {}
for line in open(sys.argv[1]):
    f = line.split()  # init PKG @T ms, C ms clock, B bytes, N allocs
    clock[f[1]].append(float(f[4]))
    heap[f[1]] = int(f[7])
runs = max(len(v) for v in clock.values())
total = sum(st.median(v) for v in clock.values())
print(f"\npackage initialisers of this build (GODEBUG=inittrace=1, median of {runs} runs): {total:.2f} ms in all")
print(f"{'clock_ms':>8} {'heap_KiB':>8}  package")
for pkg, v in sorted(clock.items(), key=lambda kv: -st.median(kv[1]))[:15]:
    print(f"{st.median(v):8.3f} {heap[pkg] / 1024:8.1f}  {pkg}")
PY
fi
