#!/usr/bin/env bash
# bench.sh: kproduce side by side with kcat (librdkafka) and a franz-go
# producer on the same local broker, in alternating rounds.
#
# Usage: scripts/bench.sh [ROUNDS] [LINES]      (defaults: 5 rounds, 1000000 lines)
# Env:   PORT (broker port, default 19192), BENCH_M1_10X=0 to skip the
#        10x-lines memory run, BENCH_KEEP=1 to keep the work directory.
#
# Workloads (100-byte lines from a file on stdin, a 6-partition topic, acks=all):
#   T1 plain lines, -o none     T2 T1 with -o text      T3 keyed (-K :, 1,000 keys)
#   T4 T1 with -z lz4 / -z zstd M1 peak RSS of T1, and of 10x the lines
#   S1 a single record (echo x | ...), connect to exit
#   L1 one line every 200 ms on an open pipe: delay to report and to a consumer
# Wall times are whole-process (/usr/bin/time); read the ratios of medians,
# not absolute times: timings on a shared machine are noisy.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-5}
lines=${2:-1000000}
port=${PORT:-19192}
work=$(mktemp -d)
cleanup() {
  kill "${bpid:-}" "${lpid:-}" 2>/dev/null || true
  [[ ${BENCH_KEEP:-0} == 1 ]] || rm -rf "$work"
}
trap cleanup EXIT

echo "building..." >&2
# CGO_ENABLED=0: the static binary the README describes (a default build
# links the C library for the net package's resolver, 1.4 MiB more RSS).
(cd "$root" && export CGO_ENABLED=0 && go build -o "$work/kproduce" ./cmd/kproduce && go build -o "$work/devbroker" ./scripts/devbroker \
  && go build -o "$work/benchpeer" ./scripts/benchpeer && go build -o "$work/latency" ./scripts/latency)
if ! command -v kcat >/dev/null; then
  if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
    echo "installing kcat..." >&2
    (apt-get update -qq && apt-get install -y -qq kcat) >/dev/null 2>&1 || true
  fi
fi
have_kcat=$(command -v kcat >/dev/null && echo 1 || echo 0)
[[ $have_kcat == 1 ]] || echo "kcat not found: comparing with the franz-go peer only" >&2

# Data: LINES lines of 100 bytes (9-digit counter, space, 90 random
# characters), and the same with a "key-NNN:" prefix (1,000 distinct keys).
gen() { # gen LINES KEYED OUT
  awk -v n="$1" -v keyed="$2" 'BEGIN {
    srand(1); a = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    for (i = 0; i < n; i++) {
      s = ""; for (j = 0; j < 90; j++) s = s substr(a, int(rand() * 62) + 1, 1)
      if (keyed) printf "key-%03d:%09d %s\n", i % 1000, i, substr(s, 9)
      else printf "%09d %s\n", i, s
    } }' >"$3"
}
echo "generating data..." >&2
gen "$lines" 0 "$work/lines.txt"
gen "$lines" 1 "$work/keyed.txt"

start_broker() { # start_broker PORT LOG [FLAGS...]
  local p=$1 log=$2; shift 2
  "$work/devbroker" -port "$p" -partitions 6 -topics bench,lat "$@" >"$log" 2>&1 &
  local pid=$!
  for _ in $(seq 100); do grep -q ready "$log" && break; sleep 0.1; done
  grep -q ready "$log" || { echo "broker did not start: $(cat "$log")" >&2; exit 1; }
  echo "$pid"
}
# The throughput broker acknowledges without storing, so memory stays flat
# over many rounds and the measurement is of the producers.
bpid=$(start_broker "$port" "$work/broker.log" -blackhole)
broker=127.0.0.1:$port

results=$work/results
: >"$results"
measure() { # measure WORKLOAD NAME INPUT COMMAND
  local w=$1 name=$2 input=$3 cmd=${4//BROKER/$broker} start end
  start=$(date +%s%N)
  if /usr/bin/time -f '%M' -o "$work/time" bash -c "$cmd" <"$input" >/dev/null 2>"$work/err"; then
    end=$(date +%s%N)
    echo "$w $name $r $(( (end - start) / 1000 )) $(tail -1 "$work/time")" >>"$results"
  else
    echo "$w/$name failed: $(tail -3 "$work/err")" >&2
  fi
}
kp=$work/kproduce
peer=$work/benchpeer
for r in $(seq "$rounds"); do
  echo "round $r/$rounds" >&2
  [[ $have_kcat == 1 ]] && measure T1 kcat "$work/lines.txt" "kcat -P -b BROKER -t bench"
  measure T1 franz "$work/lines.txt" "$peer -b BROKER -t bench"
  measure T1 kproduce "$work/lines.txt" "$kp -b BROKER -t bench -o none"
  measure T2 kproduce "$work/lines.txt" "$kp -b BROKER -t bench -o text"
  [[ $have_kcat == 1 ]] && measure T3 kcat "$work/keyed.txt" "kcat -P -b BROKER -t bench -K :"
  measure T3 franz "$work/keyed.txt" "$peer -b BROKER -t bench -K :"
  measure T3 kproduce "$work/keyed.txt" "$kp -b BROKER -t bench -K : -o none"
  for z in lz4 zstd; do
    [[ $have_kcat == 1 ]] && measure "T4-$z" kcat "$work/lines.txt" "kcat -P -b BROKER -t bench -z $z"
    measure "T4-$z" franz "$work/lines.txt" "$peer -b BROKER -t bench -z $z"
    measure "T4-$z" kproduce "$work/lines.txt" "$kp -b BROKER -t bench -z $z -o none"
  done
  echo x >"$work/one.txt"
  for _ in 1 2 3; do
    [[ $have_kcat == 1 ]] && measure S1 kcat "$work/one.txt" "kcat -P -b BROKER -t bench"
    measure S1 kproduce "$work/one.txt" "$kp -b BROKER -t bench"
  done
done
if [[ ${BENCH_M1_10X:-1} == 1 ]]; then
  for _ in $(seq 10); do cat "$work/lines.txt"; done >"$work/lines10x.txt"
  for r in $(seq 3); do
    measure M1-10x kproduce "$work/lines10x.txt" "$kp -b BROKER -t bench -o none"
  done
  rm -f "$work/lines10x.txt"
fi

echo
echo "# $(date -u +%Y-%m-%d) $(uname -m), $(nproc) cores; $lines lines of 100 bytes; $rounds rounds; $(kcat -V 2>/dev/null | head -1 || true)"
python3 - "$results" "$lines" <<'PY'
import sys, statistics as st
from collections import defaultdict
path, lines = sys.argv[1], int(sys.argv[2])
rows = defaultdict(dict)  # (workload, tool) -> round -> (wall, rss)
for l in open(path):
    w, tool, r, wall_us, rss = l.split()
    rows[(w, tool)].setdefault(r, []).append((int(wall_us) / 1e6, int(rss)))
# Several runs of a workload in one round (S1) count as their median.
rows = {k: {r: (st.median(x[0] for x in v), st.median(x[1] for x in v)) for r, v in rounds.items()}
        for k, rounds in rows.items()}
def med(w, tool, i):
    v = [x[i] for x in rows.get((w, tool), {}).values()]
    return st.median(v) if v else None
def ratio(w, tool, base_w, base_tool):
    a, b = rows.get((w, tool), {}), rows.get((base_w, base_tool), {})
    rs = [a[r][0] / b[r][0] for r in a if r in b and b[r][0] > 0]
    return st.median(rs) if rs else None
print(f"{'workload':10} {'tool':9} {'wall_med_s':>10} {'records/s':>11} {'rss_med_MiB':>11} {'vs kcat':>8} {'vs franz':>8}")
# Ratios are medians of per-round ratios (each round runs the tools back to back).
order = ['T1', 'T2', 'T3', 'T4-lz4', 'T4-zstd', 'S1', 'M1-10x']
for w in order:
    for tool in ['kcat', 'franz', 'kproduce']:
        if (w, tool) not in rows:
            continue
        wall, rss = med(w, tool, 0), med(w, tool, 1)
        n = 1 if w == 'S1' else lines * (10 if w == 'M1-10x' else 1)
        base_w = 'T1' if w == 'T2' else w
        vk = ratio(w, tool, base_w, 'kcat') if tool != 'kcat' and w != 'M1-10x' else None
        vf = ratio(w, tool, base_w, 'franz') if tool == 'kproduce' and w not in ('S1', 'M1-10x') else None
        f = lambda x: f"{x:8.3f}" if x is not None else f"{'-':>8}"
        print(f"{w:10} {tool:9} {wall:10.4f} {n / wall:11.0f} {rss / 1024:11.1f} {f(vk)} {f(vf)}")
t1 = med('T1', 'kproduce', 1); m10 = med('M1-10x', 'kproduce', 1)
if t1 and m10:
    print(f"M1: kproduce peak RSS {t1/1024:.1f} MiB for {lines} lines, {m10/1024:.1f} MiB for {10*lines} lines (ratio {m10/t1:.2f})")
PY

# L1: promptness on an open pipe (a broker that stores, so a consumer sees the records).
lpid=$(start_broker $((port + 1)) "$work/lbroker.log")
lb=127.0.0.1:$((port + 1))
echo
echo "L1: one line every 200 ms on an open pipe (delay from write)"
echo "kproduce:"; "$work/latency" -b "$lb" -t lat -n 20 -- "$kp" -b "$lb" -t lat -o '%v\n' | sed 's/^/  /'
if [[ $have_kcat == 1 ]]; then
  echo "kcat:"; "$work/latency" -b "$lb" -t lat -n 20 -- kcat -P -b "$lb" -t lat | sed 's/^/  /'
fi
