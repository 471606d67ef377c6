#!/usr/bin/env bash
# profile.sh: CPU and allocation profiles of kproduce producing LINES
# 100-byte lines (default 1,000,000) to a local dev broker that
# acknowledges without storing, then the top of each profile.
#
# Usage: scripts/profile.sh [LINES] [-- KPRODUCE ARGS...]   (default args: -o none)
# Profiles are left in ./profile/ (cpu.prof, mem.prof, kproduce.test);
# explore them with: go tool pprof -http=: profile/kproduce.test profile/cpu.prof
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
lines=${1:-1000000}
shift || true
[[ ${1:-} == -- ]] && shift
extra=${*:--o none}
port=${PORT:-19292}
out=$root/profile
mkdir -p "$out"
work=$(mktemp -d)
trap 'kill ${bpid:-} 2>/dev/null || true; rm -rf "$work"' EXIT
(cd "$root" && go test -c -tags profile -o "$out/kproduce.test" ./cmd/kproduce && go build -o "$work/devbroker" ./scripts/devbroker)
awk -v n="$lines" 'BEGIN { srand(1); a = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
  for (i = 0; i < n; i++) { s = ""; for (j = 0; j < 90; j++) s = s substr(a, int(rand() * 62) + 1, 1); printf "%09d %s\n", i, s } }' >"$work/lines.txt"
"$work/devbroker" -port "$port" -partitions 6 -topics bench -blackhole >"$work/broker.log" 2>&1 &
bpid=$!
for _ in $(seq 100); do grep -q ready "$work/broker.log" && break; sleep 0.1; done
PROFILE_INPUT=$work/lines.txt PROFILE_ARGS="-b 127.0.0.1:$port -t bench $extra" \
  "$out/kproduce.test" -test.run TestProfileRun -test.cpuprofile "$out/cpu.prof" -test.memprofile "$out/mem.prof"
go tool pprof -top -nodecount=25 "$out/kproduce.test" "$out/cpu.prof" 2>/dev/null | sed -n '1,35p'
go tool pprof -sample_index=alloc_space -top -nodecount=10 "$out/kproduce.test" "$out/mem.prof" 2>/dev/null | sed -n '1,18p'
