// Package sender is the producer engine: the Producer facade that the
// command line appends records through, and the Sender goroutine that
// drains the record accumulator into Produce requests, one per broker,
// through the network client's ready/send/poll cycle (Kafka's Sender.java).
//
// Invariants:
//   - One goroutine, the Sender's, owns the network client, the in-flight
//     batches and the idempotence state; nothing else touches them. The
//     Producer facade only appends to the accumulator, reads the metadata
//     snapshot and wakes the Sender.
//   - Every record appended gets exactly one outcome through the callback:
//     delivered with its offset, or failed with a reason. A batch's outcome
//     is set once (accumulator.Batch.Done); later answers for it are ignored.
//   - A batch's bytes are referenced by the request being written until
//     that request completes, so a batch is deallocated only after its last
//     request has completed, even when its outcome was reported earlier
//     (delivery timeout while in flight).
//   - With idempotence, sequence numbers are assigned when a batch is first
//     drained and kept across retries, so the broker deduplicates a retried
//     batch. When a partition's sequence can no longer continue (a sequenced
//     batch failed for good, or the broker lost the producer's state), no
//     new batch is sent until everything in flight has completed; then a
//     new producer id is fetched and unacknowledged batches are re-stamped
//     in their original order.
package sender
