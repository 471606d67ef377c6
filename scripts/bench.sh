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
#        BENCH_LOADS   the loads of the section at the end, default "p4 p5"
#                      (BENCH_MODES=' ' BENCH_LOADS=p5: that load and L1 alone)
#        BENCH_P4_LIMIT=0  skip P4's 100,000 files under ulimit -n 1024
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
# and, in a section of their own at the end, on a dropping broker:
#   P4 10,000 and 20,000 files of 1 KiB (-f file, and lines) vs kcat -P FILES;
#      100,000 files under ulimit -n 1024
#   P5 1,000 values of 1,000,000 bytes: 1,000 files (-f file) and 1,000 lines
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

# ---------------------------------------------------------------------------
# Loads of many files (P4) and large records (P5), against a dropping broker,
# each round kcat and kproduce back to back. BENCH_LOADS picks them (default
# "p4 p5"; empty: none). They write their own data into the work directory:
# 30,000 files of 1 KiB, 100,000 of a few bytes (BENCH_P4_LIMIT=0 skips
# them), and 2 GB for P5.

# loads_measure W TOOL CMD: one run of CMD (no stdin) on the loads' broker,
# its wall, CPU and peak RSS appended to $loads_results.
loads_measure() {
  local w=$1 tool=$2 cmd=${3//BROKER/127.0.0.1:$loads_port} start end
  start=$(date +%s%N)
  if /usr/bin/time -f '%U %S %M' -o "$work/time" bash -c "$cmd" </dev/null >/dev/null 2>"$work/err"; then
    end=$(date +%s%N)
    echo "$w $tool $r $(( (end - start) / 1000 )) $(tail -1 "$work/time") $(cut -d' ' -f1 /proc/loadavg)" >>"$loads_results"
  else
    echo "$w/$tool failed: $(tail -3 "$work/err")" >&2
  fi
}

# loads_summary TITLE: medians and ratios of $loads_results; the targets
# are python lines given on stdin after the table, with t(W, TOOL, I) the
# median of figure I (0 wall, 1 CPU, 2 RSS) and ratio(A, B, I) the median
# of per-round ratios.
loads_summary() {
  python3 - "$loads_results" "$1" 3<&0 <<'PY'
import os, sys, statistics as st
from collections import defaultdict
path, title = sys.argv[1], sys.argv[2]
rows = defaultdict(dict)  # (w, tool) -> round -> (wall, cpu, rss, load)
for l in open(path):
    w, tool, r, wall_us, user, sys_, rss, load = l.split()
    rows[(w, tool)][r] = (int(wall_us) / 1e6, float(user) + float(sys_), int(rss) / 1024, float(load))
def t(w, tool, i):
    v = [x[i] for x in rows.get((w, tool), {}).values()]
    return st.median(v) if v else float('nan')
def ratio(a, b, i):
    a, b = rows.get(a, {}), rows.get(b, {})
    rs = [a[r][i] / b[r][i] for r in a if r in b and b[r][i] > 0]
    return st.median(rs) if rs else float('nan')
loads = [x[3] for v in rows.values() for x in v.values()]
print(f"\n## {title} (dropping broker; load average {min(loads, default=0):.1f}-{max(loads, default=0):.1f})")
print(f"{'workload':14} {'tool':9} {'wall_s':>8} {'cpu_s':>8} {'rss_MiB':>8}")
for (w, tool) in sorted(rows):
    print(f"{w:14} {tool:9} {t(w, tool, 0):8.3f} {t(w, tool, 1):8.3f} {t(w, tool, 2):8.1f}")
exec(os.fdopen(3).read())
PY
}

# bench_p4_many_files: 10,000 files of 1 KiB, each one record (-f file)
# and as lines, against kcat -P with the same files (one message a file);
# 20,000 for the RSS; 100,000 under ulimit -n 1024.
bench_p4_many_files() {
  local loads_results=$work/results-p4.txt n
  : >"$loads_results"
  echo "P4: writing files..." >&2
  python3 - "$work" <<'PY'
import os, random, string, sys
random.seed(4)
alpha = (string.ascii_letters + string.digits).encode()
for n in (10000, 20000):
    d = f'{sys.argv[1]}/p4-{n}'
    os.makedirs(d)
    for i in range(n):
        with open(f'{d}/{i:06d}', 'wb') as f:
            f.write(bytes(random.choice(alpha) for _ in range(1023)) + b'\n')
PY
  for r in $(seq "$rounds"); do
    echo "P4 round $r/$rounds (load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
    for n in 10000 20000; do
      local files="$work/p4-$n/*"
      if [[ $n == 10000 && $have_kcat == 1 ]]; then loads_measure "files-$n" kcat "kcat -P -b BROKER -t bench $files"; fi
      loads_measure "files-$n" kproduce "$kp -b BROKER -t bench -f file -o none $files"
      loads_measure "lines-$n" kproduce "$kp -b BROKER -t bench -o none $files"
      if [[ $n == 10000 && $have_kcat == 1 ]]; then loads_measure "lines-$n" kcat "kcat -P -b BROKER -t bench $files"; fi
    done
  done
  local limit="skipped (BENCH_P4_LIMIT=0)" start
  if [[ ${BENCH_P4_LIMIT:-1} != 0 ]]; then
    echo "P4: 100,000 files under ulimit -n 1024..." >&2
    python3 -c 'import os, sys
os.makedirs(sys.argv[1])
for i in range(100000):
    open("%s/%06d" % (sys.argv[1], i), "w").write(str(i))' "$work/p4-100000"
    start=$(date +%s%N)
    # The shell expands the names in the directory (short names: 100,000
    # paths fit in one command line).
    limit="exit $( (ulimit -n 1024 && cd "$work/p4-100000" && "$kp" -b "127.0.0.1:$loads_port" -t bench -f file -o none -- * \
      >/dev/null 2>"$work/err"); echo $?) in $(( ($(date +%s%N) - start) / 1000000 )) ms$(head -c 200 "$work/err" | tr '\n' ' ')"
  fi
  loads_summary "P4: many files (10,000 and 20,000 files of 1 KiB)" <<PY
kc = lambda w: (w, 'kcat')
kpr = lambda w: (w, 'kproduce')
print("\ntargets:")
print(f"  P4 10,000 files, -f file: wall {ratio(kpr('files-10000'), kc('files-10000'), 0):.3f} x kcat (<= 0.5), CPU {ratio(kpr('files-10000'), kc('files-10000'), 1):.3f} x kcat")
print(f"  P4 10,000 files as lines: wall {ratio(kpr('lines-10000'), kc('lines-10000'), 0):.3f} x kcat (<= 0.5), CPU {ratio(kpr('lines-10000'), kc('lines-10000'), 1):.3f} x kcat")
print(f"  P4 peak RSS of 20,000 files / 10,000's: -f file {ratio(kpr('files-20000'), kpr('files-10000'), 2):.3f}, lines {ratio(kpr('lines-20000'), kpr('lines-10000'), 2):.3f} (<= 1.1)")
print("  P4 100,000 files under ulimit -n 1024: $limit (want: exit 0)")
PY
}

# bench_p5_large_records: 1,000 values of 1,000,000 bytes, as 1,000 files
# (-f file) and as 1,000 lines of one file, against kcat (whose
# message.max.bytes must be raised to send them).
bench_p5_large_records() {
  local loads_results=$work/results-p5.txt idle
  : >"$loads_results"
  echo "P5: writing 2 GB..." >&2
  python3 - "$work" <<'PY'
import os, random, sys
random.seed(5)
alpha = b'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'
base = bytes(random.choice(alpha) for _ in range(1_000_000))
d = f'{sys.argv[1]}/p5-files'
os.makedirs(d)
with open(f'{sys.argv[1]}/p5-lines.txt', 'wb') as lines:
    for i in range(1000):
        v = b'%09d' % i + base[9:]
        open(f'{d}/{i:04d}', 'wb').write(v)
        lines.write(v + b'\n')
PY
  local kc="kcat -X message.max.bytes=2000000 -P -b BROKER -t bench"
  local big="--max-record-bytes 2MiB --max-request-size 2MiB"
  for r in $(seq "$rounds"); do
    echo "P5 round $r/$rounds (load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
    [[ $have_kcat == 1 ]] && loads_measure files kcat "$kc $work/p5-files/*"
    loads_measure files kproduce "$kp -b BROKER -t bench -f file -o none $work/p5-files/*"
    loads_measure lines kproduce "$kp -b BROKER -t bench -o none $big $work/p5-lines.txt"
    [[ $have_kcat == 1 ]] && loads_measure lines kcat "$kc -l $work/p5-lines.txt"
    loads_measure idle kproduce "$kp -b BROKER -t bench -o none </dev/null"
  done
  loads_summary "P5: large records (1,000 values of 1,000,000 bytes)" <<'PY'
kc = lambda w: (w, 'kcat')
kpr = lambda w: (w, 'kproduce')
bound = 2 * 8 + 2 * 1_000_000 / 2**20  # MiB: 2 x --buffer-memory + 2 x the record
print("\ntargets:")
for w in ('files', 'lines'):
    print(f"  P5 {w}: wall {ratio(kpr(w), kc(w), 0):.3f} x kcat (<= 0.6), CPU {ratio(kpr(w), kc(w), 1):.3f} x kcat (<= 0.6), "
          f"peak RSS {t(w, 'kproduce', 2):.1f} MiB, {t(w, 'kproduce', 2) - t('idle', 'kproduce', 2):.1f} above an idle run's "
          f"(<= {bound:.1f}: 2 x --buffer-memory + 2 x the record)")
PY
}

if [[ -n ${BENCH_LOADS-p4 p5} ]]; then
  read -r loads_pid loads_port < <(start_broker $((port + 6)) "$work/loads-broker.log" -partitions 6 -topics bench -blackhole)
  [[ -n $loads_pid ]] || exit 1
  pids+=("$loads_pid")
  for l in ${BENCH_LOADS-p4 p5}; do
    case $l in
      p4) bench_p4_many_files ;;
      p5) bench_p5_large_records ;;
    esac
  done
fi
