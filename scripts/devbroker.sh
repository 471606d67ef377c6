#!/bin/sh
# Runs the in-process development Kafka cluster (scripts/devbroker):
#
#   scripts/devbroker.sh [-brokers N] [-port 9092] [-partitions 6] [-topics test,...] [-auto-create=false]
#
# It prints "ready host:port,..." once listening and runs until interrupted.
# It runs bin/devbroker, the binary scripts/quickstart.sh builds too, and
# builds it first only when it is missing or older than its sources.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
bin="$root/bin/devbroker"
if [ ! -x "$bin" ] || [ -n "$(find "$root/scripts/devbroker" "$root/pkg" "$root/go.mod" "$root/go.sum" -newer "$bin" -print 2>/dev/null | head -n 1)" ]; then
  mkdir -p "$root/bin"
  (cd "$root" && CGO_ENABLED=0 go build -o "$bin" ./scripts/devbroker)
fi
exec "$bin" "$@"
