// Package sender is a Kafka producer: New starts one with options
// (brokers, TLS and SASL, acks, idempotence, batching, compression,
// transactions), Produce and ProduceBatch hand records over, and each
// record's promise is called once with what became of it, delivered (its
// Offset set) or failed (an error, classified with errors.Is: ErrNotSent,
// ErrDeliveryTimeout, a Kafka error from pkg/protocol...). Flush waits for
// everything handed over; Close flushes and stops. A transactional producer
// (TransactionalID) produces between BeginTransaction and
// CommitTransaction or AbortTransaction.
//
// Produce keeps the caller's *Record until its promise runs, as franz-go's
// kgo does; ProduceBatch copies each record into its batch, with no
// allocation per record, and gives the promises the producer's own copy:
// the fast path for many records. Either way a record may carry the
// caller's own data in Opaque. ProduceBatchDone also tells when every
// record of a call has its outcome, so that what their Opaque values point
// to can be reused.
//
// The producer follows Apache Kafka's Java client (KafkaProducer,
// RecordAccumulator, Sender): one goroutine of the producer, the Sender,
// drains the record accumulator (package accumulator) into Produce
// requests, one per broker, through the network client's ready/send/poll
// cycle (package network); records are batched per partition, retried
// until the delivery timeout, deduplicated by the broker with idempotence.
//
// Invariants, for those who change this package:
//   - One goroutine, the Sender's, owns the network client, the in-flight
//     batches and the idempotence state; nothing else touches them. The
//     Producer facade only appends to the accumulator, reads the metadata
//     snapshot and wakes the Sender. The compression workers
//     (CompressionWorkers, see package accumulator) only compress sealed
//     batches and hand them back through the accumulator, waking the
//     Sender; the Sender drains a batch only once it is compressed, stamps
//     its sequence then, and writes its header and CRC as it builds the
//     request, so a retry carries the same compressed bytes.
//   - ProduceBatch places records as Produce does one after the
//     other (the sticky partition moves on when a record would open a new
//     batch there; a partition's records keep their order), routing a run
//     under one acquisition of the partitioner's lock and appending each
//     partition's records under one of the accumulator's.
//   - Every record handed over gets exactly one outcome through its promise:
//     delivered with its offset, or failed with a reason. A batch's outcome
//     is set once (accumulator.Batch.Done); later answers for it are ignored.
//     A record that fails although an attempt may have been stored (no
//     answer, REQUEST_TIMED_OUT, NOT_ENOUGH_REPLICAS_AFTER_APPEND...) says
//     that it may or may not have been written.
//   - A batch's bytes are referenced by the request being written until
//     that request completes, so a batch is deallocated only after its last
//     request has completed, even when its outcome was reported earlier
//     (delivery timeout while in flight).
//   - The Sender polls with timeout 0 only after it sent something; when
//     batches are ready but held back (no producer id yet, a retry that
//     must wait for an older batch, a leader without a connection), it
//     waits for the network instead of spinning, and it asks for metadata
//     at most once per metadata update (each request wakes its own poll).
//     After a client-fatal error it sends nothing more.
//   - With one request in flight per connection, a partition with a batch
//     in flight is muted, so a leader change cannot reorder its batches.
//   - With idempotence, sequence numbers are assigned when a batch is first
//     drained and kept across retries, so the broker deduplicates a retried
//     batch; a retried batch is sent only as the oldest unacknowledged one
//     of its partition, and until the broker acknowledged a first batch of
//     a partition under the current producer id that batch goes alone
//     (brokers before Kafka 4.5 take any first sequence from a producer
//     they have no state for). A batch's sequence is given back to the
//     next batch only when the broker provably never wrote it and no later
//     batch has a sequence; a batch whose outcome is unknown keeps its
//     sequence (an expired in-flight batch stays unacknowledged until its
//     request completes).
//   - When a partition's sequence can no longer continue (a sequenced batch
//     failed for good before later ones, or the broker lost the producer's
//     state), no new batch is sent until everything in flight has completed
//     and the batches before the break are resolved under the current
//     producer id (the broker recognises their duplicates only under it);
//     then a new producer id is fetched and the unacknowledged batches are
//     re-stamped from sequence 0 in their original order.
//   - A batch the broker finds too large is split only when it is the
//     oldest unacknowledged batch of its partition with nothing else of it
//     in flight: the halves go to the front of the partition's queue,
//     which is then the right place.
//   - A transactional producer (TransactionalID) gets its producer id
//     from the transaction coordinator and sends its transactional requests
//     (FindCoordinator, InitProducerId, AddPartitionsToTxn, EndTxn) one at a
//     time from the Sender goroutine; the facade only posts commands. A
//     batch is sent only inside an open transaction and once its partition
//     was added to it. A failed record makes the transaction abortable
//     (never an epoch bump inside a transaction); EndTxn goes out only when
//     no batch of the transaction is queued or in flight; after an abort the
//     producer id is fetched again. Fencing and a refused transactional id
//     are client-fatal.
package sender
