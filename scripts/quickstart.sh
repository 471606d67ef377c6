#!/usr/bin/env bash
# quickstart.sh: builds kproduce and the local dev broker, starts the broker
# on 127.0.0.1:9092, produces three records and prints their delivery
# reports, then stops the broker. Needs only Go.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$root/bin"
# CGO_ENABLED=0: a static binary (the pure Go resolver; no C library).
(cd "$root" && export CGO_ENABLED=0 && go build -o bin/kproduce ./cmd/kproduce && go build -o bin/devbroker ./scripts/devbroker)
log=$(mktemp)
"$root/bin/devbroker" -port 9092 -partitions 6 -topics test >"$log" 2>&1 &
broker=$!
trap 'kill $broker 2>/dev/null; rm -f "$log"' EXIT
for _ in $(seq 100); do grep -q ready "$log" && break; sleep 0.1; done
grep -q ready "$log" || { cat "$log" >&2; exit 1; }
echo "dev broker: $(cat "$log")"
echo "+ printf 'hello\nkafka\nworld\n' | bin/kproduce -b 127.0.0.1:9092 -t test"
printf 'hello\nkafka\nworld\n' | "$root/bin/kproduce" -b 127.0.0.1:9092 -t test
echo "exit status: $?"
