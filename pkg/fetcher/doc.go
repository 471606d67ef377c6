// Package fetcher reads records back from a cluster, as a consumer does
// (Kafka's Fetcher and OffsetFetcher): ListOffsets of a topic's
// partitions, and Fetch of one partition's records from a given offset,
// each asked of the partition's leader over an admin.Client's connections,
// the batches decoded by package fetch (read_committed: aborted
// transactions dropped). kproduce uses it to resume a load (the
// checkpoints it committed) and to check a cluster (its canaries read
// back).
//
// Invariants:
//   - A retriable partition error (a leader change, an offset not yet
//     available) is retried after a backoff until the call's context ends,
//     refreshing the topic's metadata first when the error says it is
//     stale; the call then fails with the last such error. Any other
//     error ends the call at once.
//   - A broker that answers for another partition than asked, or not for
//     the one asked, ends the call with an error: nothing is guessed.
package fetcher
