#!/usr/bin/env bash
# The test command: vet, then every test with the race detector.
set -euo pipefail
cd "$(dirname "$0")/.."
unformatted=$(gofmt -l cmd internal pkg scripts)
if [[ -n $unformatted ]]; then
  echo "gofmt needed: $unformatted" >&2
  exit 1
fi
go vet ./...
go test -race -timeout 15m "$@" ./...
