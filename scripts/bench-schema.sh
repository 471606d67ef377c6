#!/usr/bin/env bash
# bench-schema.sh: kproduce producing 1,000,000 JSON lines of a 6-field
# record (about 120 bytes each) as Avro, Protobuf and JSON Schema records
# to a dropping dev broker, with an in-memory Schema Registry, beside plain
# lines (T1 on the 100-byte lines of bench.sh, and the same JSON lines sent
# as they are), in alternating rounds; prints the median wall time,
# records/s, CPU per record and peak RSS of each, and the CPU ratio to T1.
#
# Usage: scripts/bench-schema.sh [ROUNDS] [LINES]   (defaults: 5 rounds, 1000000 lines)
# Env:   PORT (broker port, default 19492; the registry takes PORT+1)
#        BENCH_FORMATS  the workloads, default "T1 json-lines avro protobuf json-schema"
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-5}
lines=${2:-1000000}
port=${PORT:-19492}
formats=${BENCH_FORMATS:-T1 json-lines avro protobuf json-schema}
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

echo "building..." >&2
(cd "$root" && export CGO_ENABLED=0 && go build -o "$work/kproduce" ./cmd/kproduce && go build -o "$work/devbroker" ./scripts/devbroker \
  && go build -o "$work/devregistry" ./scripts/devregistry)

echo "generating data..." >&2
python3 - "$lines" "$work" <<'PY'
import random, string, sys
n, work = int(sys.argv[1]), sys.argv[2]
random.seed(1)
alpha = string.ascii_letters + string.digits
with open(f'{work}/lines.txt', 'w') as f:
    f.writelines('%09d %s\n' % (i, ''.join(random.choices(alpha, k=90))) for i in range(n))
cur = ['EUR', 'USD', 'GBP']
with open(f'{work}/events.json', 'w') as f:
    for i in range(n):
        f.write('{"id":%d,"user":"user-%06d","amount":%d.%02d,"currency":"%s","ts":%d,"note":"%s"}\n' % (
            i, random.randrange(1000000), random.randrange(100000), random.randrange(100), random.choice(cur),
            1700000000000 + i, ''.join(random.choices('abcdefghijklmnopqrstuvwxyz ', k=24))))
PY
cat >"$work/event.avsc" <<'EOF'
{"type":"record","name":"Event","namespace":"bench","fields":[
 {"name":"id","type":"long"},{"name":"user","type":"string"},{"name":"amount","type":"double"},
 {"name":"currency","type":{"type":"enum","name":"Currency","symbols":["EUR","USD","GBP"]}},
 {"name":"ts","type":{"type":"long","logicalType":"timestamp-millis"}},{"name":"note","type":["null","string"],"default":null}]}
EOF
cat >"$work/event.proto" <<'EOF'
syntax = "proto3";
package bench;
enum Currency { EUR = 0; USD = 1; GBP = 2; }
message Event { int64 id = 1; string user = 2; double amount = 3; Currency currency = 4; int64 ts = 5; string note = 6; }
EOF
cat >"$work/event.json" <<'EOF'
{"$schema":"http://json-schema.org/draft-07/schema#","title":"Event","type":"object",
 "properties":{"id":{"type":"integer"},"user":{"type":"string"},"amount":{"type":"number"},"currency":{"enum":["EUR","USD","GBP"]},
 "ts":{"type":"integer"},"note":{"type":["string","null"]}},"required":["id","user","amount","currency","ts"],"additionalProperties":false}
EOF

# start NAME LOG COMMAND...: starts a server and waits for its ready line.
start() {
  local log=$1; shift
  "$@" >"$log" 2>&1 &
  pids+=($!)
  for _ in $(seq 200); do grep -q ready "$log" && return; sleep 0.05; done
  echo "did not start: $* ($(cat "$log"))" >&2
  exit 1
}
start "$work/broker.log" "$work/devbroker" -port "$port" -partitions 6 -topics bench -blackhole
start "$work/registry.log" "$work/devregistry" -port $((port + 1))
registry=http://127.0.0.1:$((port + 1))

args_of() {
  case $1 in
  T1) echo "-b 127.0.0.1:$port -t bench -o none" ;;
  json-lines) echo "-b 127.0.0.1:$port -t bench -o none" ;;
  avro) echo "-b 127.0.0.1:$port -t bench -o none --schema-registry $registry --value-schema $work/event.avsc" ;;
  protobuf) echo "-b 127.0.0.1:$port -t bench -o none --schema-registry $registry --value-schema $work/event.proto" ;;
  json-schema) echo "-b 127.0.0.1:$port -t bench -o none --schema-registry $registry --value-schema $work/event.json" ;;
  esac
}
input_of() { [[ $1 == T1 ]] && echo "$work/lines.txt" || echo "$work/events.json"; }

results=$work/results.txt
: >"$results"
for r in $(seq "$rounds"); do
  echo "round $r/$rounds (load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
  for f in $formats; do
    start_ns=$(date +%s%N)
    # shellcheck disable=SC2046
    /usr/bin/time -f '%U %S %M' -o "$work/time" "$work/kproduce" $(args_of "$f") <"$(input_of "$f")" 2>"$work/err" \
      || { echo "$f failed: $(tail -3 "$work/err")" >&2; continue; }
    end_ns=$(date +%s%N)
    echo "$f $r $(( (end_ns - start_ns) / 1000 )) $(cat "$work/time")" >>"$results"
  done
done

python3 - "$results" "$lines" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
n = int(sys.argv[2])
by = {}
for f, r, us, u, s, rss in rows:
    by.setdefault(f, []).append((int(us) / 1e6, float(u) + float(s), int(rss) / 1024))
med = lambda xs: statistics.median(xs)
t1 = {int(r): float(u) + float(s) for f, r, us, u, s, rss in rows if f == 'T1'}
print(f"{'workload':12} {'wall s':>7} {'records/s':>11} {'CPU s':>6} {'ns/record':>9} {'RSS MiB':>8} {'CPU/T1':>7}")
for f, v in by.items():
    ratios = [float(u) + float(s) for g, r, us, u, s, rss in rows if g == f]
    rs = [c / t1[int(r)] for (g, r, us, u, s, rss), c in zip([x for x in rows if x[0] == f], ratios) if int(r) in t1]
    wall, cpu, rss = med([x[0] for x in v]), med([x[1] for x in v]), med([x[2] for x in v])
    ratio = f"{med(rs):.2f}" if rs else "-"
    print(f"{f:12} {wall:7.3f} {n / wall:11,.0f} {cpu:6.2f} {cpu / n * 1e9:9.0f} {rss:8.1f} {ratio:>7}")
PY
