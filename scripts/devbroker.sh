#!/bin/sh
# Builds and runs the in-process development Kafka cluster.
#
#   scripts/devbroker.sh [-brokers N] [-port 9092] [-partitions 6] [-topics test,...]
#
# It prints "ready host:port,..." once listening and runs until interrupted.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
bin="${TMPDIR:-/tmp}/kproduce-devbroker"
(cd "$root" && go build -o "$bin" ./scripts/devbroker)
exec "$bin" "$@"
