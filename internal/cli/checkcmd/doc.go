// Package checkcmd is kproduce check: a smoke test of a cluster that
// produces canary records to every partition of a topic (creating the
// topic first with --create), reads each back from its partition's leader,
// and reports per partition its leader, latency and read latency, or why it
// failed.
//
// Invariants:
//   - The whole check is bounded by --timeout: the metadata wait and the
//     topic's creation first, then what is left for the canaries, each of
//     which is given up after it (its delivery timeout).
//   - A canary is read back only after its acknowledgement, from the
//     partition's leader, at its own offset, and recognised by its header
//     kproduce-canary (the run id): a check proves data can be read, not
//     just written.
//   - A partition fails on its own (no leader, not reachable, a Kafka
//     error, not read back); the exit status is 0 only when none failed.
package checkcmd
