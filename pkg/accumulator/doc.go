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
// writes the header (and compresses, without workers), and after the
// broker answers Done reports every record through the Callback, after
// which Deallocate returns the memory. Retries go back with Reenqueue,
// too-large batches with SplitAndReenqueue, timed-out ones come out of
// ExpiredBatches.
//
// Compression runs on up to Config.CompressionWorkers goroutines, a batch
// each, as soon as a batch is sealed: when it is full (the appender seals
// it as it opens the next), or when Drain finds it at the head of its
// partition with nothing compressed ahead of it (its linger ran out, a
// flush, memory pressure). Drain takes a head only once it is compressed,
// so a partition's batches are sent in order whatever order they finish
// in, and the worker's signal wakes the sender. Java's producer compresses
// as records are appended, on the threads that call send, so its
// parallelism is the application's threads (one, for a command line);
// librdkafka compresses as it builds each request, on the thread of the
// broker it goes to, so a single-broker load uses one core. Compressing
// sealed batches on a pool of workers of its own uses every core for one
// partition or a thousand, one broker or many, keeps the appender (the
// input reader) and the sender goroutine free of compression, and costs
// one hand-off per batch. The records section is all that is compressed:
// the producer id, epoch and sequence (stamped by the sender's drain veto)
// and the CRC (written by Close) are in the header, outside it, so a batch
// is compressed once, before its sequence is known, and a retry is sent
// byte for byte as first compressed, with the same sequence, as idempotent
// deduplication needs; a new producer id re-stamps the header and its CRC
// only. The compressed records replace the uncompressed ones in the
// batch's own buffer (unless the reports need the records: ResultRecords,
// or timestamps too far apart for the completion list), so compression
// takes no buffer memory; each worker holds its encoder and an output
// buffer of up to a batch, outside the budget, kept for the next worker
// (a worker goroutine ends when the queue is empty and is started again
// for the next batch, so none outlives the work). Without workers Close
// compresses on the sender's goroutine, one batch at a time.
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
//     batch), and doubles up to the batch size. Compressed records take the
//     place of the uncompressed ones (a full batch leaves room for the
//     codec's overhead on incompressible data), so compression takes
//     nothing from the budget; only a compressed copy that must sit beside
//     the records (ResultRecords, wide timestamps, or one that does not
//     fit) and split buffers are taken without waiting, and with
//     ResultRecords appenders leave room for one full batch's compressed
//     copy, so compressing rarely overdraws the budget. An overdraft lasts
//     until released buffers repay it (they are not cached meanwhile);
//     appenders wait.
//     What reporting a record needs (its timestamp delta, packed as a
//     varint difference: usually 1 byte a record; its Ref, 16 bytes, only
//     when records have refs; an owner per append call) lives in recycled
//     slices outside the budget; since a record takes at least 7 buffer
//     bytes they are bounded too.
//   - A batch's encoded size (header and uncompressed records) stays within
//     min(BatchSize, BufferMemory) unless its single record is larger.
//   - A batch is compressed at most once (compressIdle, compressQueued,
//     compressRunning, compressDone, under mu). While a worker reads a
//     batch's records (compressRunning) only it touches the buffer; a
//     Deallocate meanwhile (the batch expired, or was aborted) leaves the
//     release to the worker. A queued batch that is deallocated is skipped.
//     Drain, Ready and Close see a batch as compressed only after the
//     worker published the result under mu.
//   - What a batch holds is recycled: its buffers go back to the pool at
//     Deallocate, its completion list to a free list (within a share of
//     the buffer memory), and its struct to new batches, but only from
//     RecycleBatches on: Deallocate may come while the caller still names
//     the batch (the response being handled goes on to its other batches;
//     SplitAndReenqueue deallocates the batch it replaces before the
//     sender moves its sequences to the parts), so a deallocated batch
//     waits until its owner says nothing refers to it (the sender, at the
//     start of its next turn; its idempotence state drops a batch once
//     settled). A batch still queued for compression leaves the queue at
//     Deallocate. What is not recycled: a batch's memory while a request
//     that carries it may still be written (the sender deallocates only
//     after the request completed), a Split's parts (rare), and the
//     garbage of each request and response (a few slices per request,
//     whatever its batches).
//   - A batch leaves the pending state exactly once: Done (callbacks fire,
//     in record order, without any lock held; with Config.OnDelivered a
//     delivered batch is reported once instead; Config.OnOwnerRun hears
//     of each append call's run of records after they were reported) or
//     SplitAndReenqueue (its
//     records move to new batches). Deallocate releases memory at most once
//     and only after that.
//   - Time is always passed in; randomness (backoff jitter, sticky and
//     random partition choice) is injected.
package accumulator
