#!/usr/bin/env bash
# bench.sh: kproduce side by side with kcat (librdkafka) and a franz-go
# producer, in alternating rounds, against a local broker that stores the
# records and one that drops them; prints every target with its measured
# ratio.
#
# Usage: scripts/bench.sh [ROUNDS] [LINES]      (defaults: 5 rounds, 1000000 lines)
# Env:   PORT (first broker port, default 19192)
#        BENCH_MODES   brokers to run against, default "store drop"
#        BENCH_ONLY    workloads to run (space-separated, e.g. "T1 Z-zstd W1"); default all
#        BENCH_CODECS  codecs of the Z workloads, default "gzip snappy lz4 zstd"
#        BENCH_BASE    another kproduce binary to measure alongside ("base"),
#                      e.g. a build of main, for before/after comparisons
#        BENCH_KEEP=1  keep the work directory (raw results in results.txt)
#
# Workloads (100-byte lines from a file on stdin, a 6-partition topic, acks=all):
#   T1 plain lines, -o none      T2 T1 with -o text (compared with kcat's T1)
#   T3 keyed, -K ' ' (1,000,000 distinct keys)
#   Z-<codec> T1 with -z <codec>, each tool with the same codec; kproduce also
#      with GOMAXPROCS=1 (tool "kproduce/1") to show how compression scales
#      with the cores; the bytes of the record batches on the wire are
#      counted by the broker (devbroker -wire-stats) and compared
#   W1 200,000 keyed lines to a topic of 1,000 partitions (peak RSS vs T1's)
#   G1 LINES generated 100-byte records, no input: kproduce perf --record-size 100
#      (records/s vs kproduce's T1), beside kcat fed by a generator (yes | head)
#   J1 one -f json run of 100 topics x 1,000 records, new topics (by topic, and interleaved)
#   S1 a single record (echo x | ...), connect to exit
#   L1 one line every 200 ms on an open pipe: delay to report and to a consumer
# The storing broker is started afresh for every run (it keeps every record
# in memory), and so is the dropping one for the Z workloads (to count
# each run's bytes); otherwise the dropping one acknowledges without
# storing and serves a whole mode. Every broker lists Produce from v0 in
# ApiVersions (devbroker -advertise-produce-v0): librdkafka compresses gzip,
# snappy and lz4 only then, and would otherwise send those batches
# uncompressed (the summary checks kcat's batches). Wall is measured around
# the process, CPU is its user+sys (/usr/bin/time), RSS its peak. Ratios
# are medians of per-round ratios (each round runs the tools back to back);
# the load average is printed per round: read ratios, not absolute times,
# on a shared machine.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-5}
lines=${2:-1000000}
port=${PORT:-19192}
modes=${BENCH_MODES:-store drop}
codecs=${BENCH_CODECS:-gzip snappy lz4 zstd}
only=${BENCH_ONLY:-}
base=${BENCH_BASE:-}
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  [[ ${BENCH_KEEP:-0} == 1 ]] && echo "work directory: $work" >&2 || rm -rf "$work"
}
trap cleanup EXIT

echo "building..." >&2
# CGO_ENABLED=0: the static binary the README describes.
(cd "$root" && export CGO_ENABLED=0 && go build -o "$work/kproduce" ./cmd/kproduce && go build -o "$work/devbroker" ./scripts/devbroker \
  && go build -o "$work/benchpeer" ./scripts/benchpeer && go build -o "$work/latency" ./scripts/latency)
if ! command -v kcat >/dev/null && [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
  echo "installing kcat..." >&2
  (apt-get update -qq && apt-get install -y -qq kcat) >/dev/null 2>&1 || true
fi
have_kcat=$(command -v kcat >/dev/null && echo 1 || echo 0)
[[ $have_kcat == 1 ]] || echo "kcat not found: comparing with the franz-go peer only" >&2

echo "generating data..." >&2
# LINES lines of 100 bytes: a 9-digit counter, a space, 90 random characters.
python3 - "$lines" "$work" <<'PY'
import random, string, sys
n, work = int(sys.argv[1]), sys.argv[2]
random.seed(1)
alpha = string.ascii_letters + string.digits
rows = ['%09d %s\n' % (i, ''.join(random.choices(alpha, k=90))) for i in range(n)]
open(f'{work}/lines.txt', 'w').writelines(rows)
open(f'{work}/wide.txt', 'w').writelines(rows[:min(n, 200000)])
random.seed(2)
vals = [''.join(random.choices(string.ascii_letters, k=60)) for _ in range(1000)]
with open(f'{work}/topics.json', 'w') as f:
    for t in range(100):
        for i in range(1000):
            f.write('{"topic":"t%03d","value":"%s"}\n' % (t, vals[i]))
with open(f'{work}/topics-mixed.json', 'w') as f:
    for i in range(1000):
        for t in range(100):
            f.write('{"topic":"m%03d","value":"%s"}\n' % (t, vals[i]))
PY
echo x >"$work/one.txt"

# start_broker PORT LOG [FLAGS...]: starts a dev broker, echoes its pid and
# port; tries other ports when one does not start (as seldom happens on a
# busy machine).
start_broker() {
  local p=$1 log=$2 try pid; shift 2
  for try in 1 2 3; do
    "$work/devbroker" -port "$p" -advertise-produce-v0 "$@" >"$log" 2>&1 &
    pid=$!
    for _ in $(seq 200); do grep -q ready "$log" && break; kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    if grep -q ready "$log"; then
      echo "$pid $p"
      return
    fi
    echo "broker did not start on port $p (try $try): $(cat "$log")" >&2
    kill -9 "$pid" 2>/dev/null || true
    p=$((p + 100))
  done
  exit 1
}
# stop_broker PID: stops a broker and waits until it is gone (a broker that
# stored a million records takes a moment to exit; one counting bytes
# writes them on exit), killing it if need be.
stop_broker() {
  kill "$1" 2>/dev/null || return 0
  for _ in $(seq 100); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.05; done
  kill -9 "$1" 2>/dev/null || true
}

results=$work/results.txt
: >"$results"
mode=
dpid=
dport=$port
runs=0
# wanted WORKLOAD: whether BENCH_ONLY lets it run.
wanted() { [[ -z $only || " $only " == *" $1 "* ]]; }
# measure WORKLOAD TOOL INPUT COMMAND [BROKER FLAGS...]: one run, on a fresh
# storing broker (store), or with broker flags on a fresh broker of the
# mode, or on the mode's dropping broker. A fresh broker takes the next of
# 50 ports, so that one still exiting is no obstacle. A Z workload's
# broker counts the bytes of the batches it receives.
measure() {
  local w=$1 tool=$2 input=$3 cmd=$4 bp="" p=$dport start end wire="- -"; shift 4
  wanted "$w" || return 0
  rm -f "$work/wire"
  if [[ $mode == store || $# -gt 0 || $w == Z-* ]]; then
    runs=$((runs + 1))
    p=$((port + 10 + runs % 50))
    local flags=("$@")
    [[ ${#flags[@]} -gt 0 ]] || flags=(-partitions 6 -topics bench,lat)
    [[ $mode == drop ]] && flags+=(-blackhole)
    [[ $w == Z-* ]] && flags+=(-wire-stats "$work/wire")
    read -r bp p < <(start_broker "$p" "$work/broker-run.log" "${flags[@]}")
    [[ -n $bp ]] || exit 1
  fi
  cmd=${cmd//BROKER/127.0.0.1:$p}
  start=$(date +%s%N)
  if /usr/bin/time -f '%U %S %M' -o "$work/time" bash -c "$cmd" <"$input" >/dev/null 2>"$work/err"; then
    end=$(date +%s%N)
    [[ -z $bp ]] || stop_broker "$bp"
    # requests R batches B records N bytes X (per codec ...: CODEC=b/r/x ...)
    [[ -s $work/wire ]] && wire=$(awk '{ c = ""; for (i = 12; i <= NF; i++) c = c (c ? "," : "") $i; gsub(/\)/, "", c); print $8, c }' "$work/wire")
    echo "$mode $w $tool $r $(( (end - start) / 1000 )) $(tail -1 "$work/time") $(cut -d' ' -f1 /proc/loadavg) $wire" >>"$results"
  else
    echo "$mode $w/$tool failed: $(tail -3 "$work/err")" >&2
    [[ -z $bp ]] || stop_broker "$bp"
  fi
}

kp=$work/kproduce
peer=$work/benchpeer
tools=(kproduce)
[[ -n $base ]] && tools+=(base)
bin() { [[ $1 == base ]] && echo "$base" || echo "$kp"; }
for mode in $modes; do
  if [[ $mode == drop ]]; then
    read -r dpid dport < <(start_broker "$port" "$work/broker.log" -partitions 6 -topics bench,lat -blackhole)
    [[ -n $dpid ]] || exit 1
    pids+=("$dpid")
  fi
  for r in $(seq "$rounds"); do
    echo "$mode round $r/$rounds (load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
    L=$work/lines.txt
    [[ $have_kcat == 1 ]] && measure T1 kcat "$L" "kcat -P -b BROKER -t bench"
    measure T1 franz "$L" "$peer -b BROKER -t bench"
    for t in "${tools[@]}"; do measure T1 "$t" "$L" "$(bin "$t") -b BROKER -t bench -o none"; done
    for t in "${tools[@]}"; do measure T2 "$t" "$L" "$(bin "$t") -b BROKER -t bench -o text"; done
    [[ $have_kcat == 1 ]] && measure T3 kcat "$L" "kcat -P -b BROKER -t bench -K ' '"
    measure T3 franz "$L" "$peer -b BROKER -t bench -K ' '"
    for t in "${tools[@]}"; do measure T3 "$t" "$L" "$(bin "$t") -b BROKER -t bench -K ' ' -o none"; done
    for z in $codecs; do
      [[ $have_kcat == 1 ]] && measure "Z-$z" kcat "$L" "kcat -P -b BROKER -t bench -z $z"
      for t in "${tools[@]}"; do measure "Z-$z" "$t" "$L" "$(bin "$t") -b BROKER -t bench -z $z -o none"; done
      [[ $mode == drop ]] && measure "Z-$z" kproduce/1 "$L" "GOMAXPROCS=1 $kp -b BROKER -t bench -z $z -o none"
    done
    [[ $have_kcat == 1 ]] && measure G1 kcat /dev/null 'yes $(printf %0100d 0) | head -n '"$lines"' | kcat -P -b BROKER -t bench'
    measure G1 kproduce /dev/null "$kp perf -b BROKER -t bench --record-size 100 --num-records $lines --throughput -1"
    wide=(-partitions 1000 -topics wide)
    [[ $have_kcat == 1 ]] && measure W1 kcat "$work/wide.txt" "kcat -P -b BROKER -t wide -K ' '" "${wide[@]}"
    for t in "${tools[@]}"; do measure W1 "$t" "$work/wide.txt" "$(bin "$t") -b BROKER -t wide -K ' ' -o none" "${wide[@]}"; done
    for t in "${tools[@]}"; do
      measure J1 "$t" "$work/topics.json" "$(bin "$t") -b BROKER -f json -o none" -partitions 6 -topics bench
      measure J1-mixed "$t" "$work/topics-mixed.json" "$(bin "$t") -b BROKER -f json -o none" -partitions 6 -topics bench
    done
    for _ in 1 2 3; do
      [[ $have_kcat == 1 ]] && measure S1 kcat "$work/one.txt" "kcat -P -b BROKER -t bench"
      for t in "${tools[@]}"; do measure S1 "$t" "$work/one.txt" "$(bin "$t") -b BROKER -t bench"; done
    done
  done
  [[ -z $dpid ]] || { stop_broker "$dpid"; dpid=; }
done

echo
echo "# $(date -u +%Y-%m-%d) $(uname -m), $(nproc) cores; $lines lines of 100 bytes; $rounds rounds; $(kcat -V 2>/dev/null | sed -n 's/^Version \([^ ]*\).*\(librdkafka [^ ]*\).*/kcat \1, \2/p' | head -1)"
python3 "$root/scripts/bench_summary.py" "$results" "$lines" "$codecs"

wanted L1 || exit 0
# L1: promptness on an open pipe (a storing broker, so a consumer sees the records).
read -r lpid lb < <(start_broker $((port + 4)) "$work/lbroker.log" -partitions 6 -topics lat)
[[ -n $lpid ]] || exit 1
pids+=("$lpid")
echo
echo "L1: one line every 200 ms on an open pipe (delay from write)"
echo "kproduce:"; "$work/latency" -b "127.0.0.1:$lb" -t lat -n 20 -- "$kp" -b "127.0.0.1:$lb" -t lat -o '%v\n' | sed 's/^/  /'
if [[ -n $base ]]; then
  echo "base:"; "$work/latency" -b "127.0.0.1:$lb" -t lat -n 20 -- "$base" -b "127.0.0.1:$lb" -t lat -o '%v\n' | sed 's/^/  /'
fi
if [[ $have_kcat == 1 ]]; then
  echo "kcat:"; "$work/latency" -b "127.0.0.1:$lb" -t lat -n 20 -- kcat -P -b "127.0.0.1:$lb" -t lat | sed 's/^/  /'
fi
