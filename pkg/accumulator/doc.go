// Package accumulator queues records into per-partition record batches for
// the sender: Kafka's RecordAccumulator, ProducerBatch and BufferPool, and
// the partitioners.
//
// An appender goroutine calls Append, which encodes each record straight
// into the open batch's buffer, or AppendRecords, which does the same for a
// run of records of one partition under one acquisition of the lock and
// with one wakeup of the sender (the records that fit the open batch skip
// Append's checks, which they pass by construction). The sender goroutine asks Ready which
// leaders have sendable batches, Drain takes them, Close (on the Batch)
// writes the header and compresses, and after the broker answers Done
// reports every record through the Callback, after which Deallocate returns
// the memory. Retries go back with Reenqueue, too-large batches with
// SplitAndReenqueue, timed-out ones come out of ExpiredBatches.
//
// Invariants:
//   - One mutex (Accumulator.mu) guards the deques and every batch while it
//     is in a deque. Once Drain or ExpiredBatches hands a batch out it is
//     the sender's, until Reenqueue puts it back. Appends only ever touch
//     the tail batch of a deque, and only while it is open for appends; a
//     drained, retried, expired or split batch is never reopened.
//   - Lock order: Accumulator.mu, then the buffer pool's lock. Nothing
//     blocks while holding either: an Append that needs memory releases the
//     deque lock, waits in the pool's FIFO queue, and tries again with the
//     buffer it obtained (Kafka's allocate-outside-the-lock).
//   - Buffer memory: every batch buffer is charged to the budget at its
//     capacity, from the moment it is allocated until Deallocate. Buffers
//     of a class size (powers of two from min(4 KiB, batch size) up to
//     the full batch size) are blocks carved out of chunks of the full
//     size (a buddy allocator): chunks are allocated within the budget and
//     kept, released blocks merge and serve any class again, so a changing
//     mix of sizes makes no garbage; a wholly free chunk is dropped only
//     for room for a buffer of another size. A new batch starts at the size class
//     of what its partition's last batch held when it closed for appends
//     (the smallest class at first; a full-size buffer after a full
//     batch), and doubles up to the batch size. Only the sender's compression and
//     split buffers are taken without waiting; with a codec, appenders
//     leave room for one full batch's compressed copy, so compressing
//     rarely overdraws the budget. An overdraft lasts until released
//     buffers repay it (they are not cached meanwhile); appenders wait.
//     What reporting a record needs (its timestamp delta, packed as a
//     varint difference: usually 1 byte a record; its Ref, 16 bytes, only
//     when records have refs; an owner per append call) lives in recycled
//     slices outside the budget; since a record takes at least 7 buffer
//     bytes they are bounded too.
//   - A batch's encoded size (header and uncompressed records) stays within
//     min(BatchSize, BufferMemory) unless its single record is larger.
//   - A batch leaves the pending state exactly once: Done (callbacks fire,
//     in record order, without any lock held; with Config.OnDelivered a
//     delivered batch is reported once instead) or SplitAndReenqueue (its
//     records move to new batches). Deallocate releases memory at most once
//     and only after that.
//   - Time is always passed in; randomness (backoff jitter, sticky and
//     random partition choice) is injected.
package accumulator
