#!/usr/bin/env bash
# instructions.sh: user-space instructions a record of a kproduce run, by
# valgrind's cachegrind: the difference between runs of 200,000 and
# 1,000,000 100-byte lines (so start-up and shutdown cancel out), GOGC=off,
# against a local dev broker that drops what it is sent. Unlike timings on
# a shared machine, the counts barely move from run to run (a few
# instructions a record).
#
# Usage: scripts/instructions.sh [KPRODUCE ARGS...]   (default: -o none)
#   e.g. scripts/instructions.sh -o text; scripts/instructions.sh -o none -K ' '
# Env:   PORT                the dev broker's port (default 19493)
#        PARTITIONS          partitions of the topic (default 6; 1000 for the
#                            many-partition load, with -K ' ')
#        INSTRUCTIONS_BASE   another kproduce binary to count alongside ("base")
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
port=${PORT:-19493}
command -v valgrind >/dev/null || { echo "instructions.sh needs valgrind (apt-get install -y valgrind)" >&2; exit 2; }
[[ $# -gt 0 ]] || set -- -o none
work=$(mktemp -d)
trap 'kill ${bpid:-} 2>/dev/null || true; rm -rf "$work"' EXIT
(cd "$root" && CGO_ENABLED=0 go build -o "$work/kproduce" ./cmd/kproduce && go build -o "$work/devbroker" ./scripts/devbroker)
python3 - "$work" <<'PY'
import random, string, sys
random.seed(1)
alpha = string.ascii_letters + string.digits
rows = ['%09d %s\n' % (i, ''.join(random.choices(alpha, k=90))) for i in range(1000000)]
open(sys.argv[1] + '/lines-1m.txt', 'w').writelines(rows)
open(sys.argv[1] + '/lines-200k.txt', 'w').writelines(rows[:200000])
PY
"$work/devbroker" -blackhole -port "$port" -topics bench -partitions "${PARTITIONS:-6}" >"$work/broker.log" 2>&1 &
bpid=$!
for _ in $(seq 50); do (echo >/dev/tcp/127.0.0.1/"$port") 2>/dev/null && break; sleep 0.1; done
count() { # BIN INPUT: instructions of one run
  # cpu.rdtscp=off: the runtime's clock reads without RDTSCP, which
  # valgrind does not emulate (SIGILL in runtime.cputicks otherwise).
  GODEBUG=cpu.rdtscp=off GOGC=off valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file="$work/cg.out" \
    "$1" -b 127.0.0.1:"$port" -t bench "${@:3}" <"$2" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
  awk '/^summary:/ {print $2; exit}' "$work/cg.out"
}
report() { # NAME BIN
  local a b
  a=$(count "$2" "$work/lines-200k.txt" "${args[@]}")
  b=$(count "$2" "$work/lines-1m.txt" "${args[@]}")
  echo "$1: $(( (b - a) / 800000 )) instructions a record (kproduce ${args[*]})"
}
args=("$@")
report kproduce "$work/kproduce"
[[ -n ${INSTRUCTIONS_BASE:-} ]] && report base "$INSTRUCTIONS_BASE"
exit 0
