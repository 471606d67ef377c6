package accumulator

import (
	"sync/atomic"
	"time"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// Batch states; a batch leaves statePending exactly once.
const (
	statePending int32 = iota
	stateDone          // Done ran (callbacks fired)
	stateSplit         // replaced by the batches of SplitAndReenqueue
)

// Batch is a record batch for one partition (Kafka's ProducerBatch): a
// buffer holding the batch header space and the encoded records, what
// reporting the records needs (see completions), and the send state.
//
// Ownership: while a batch is in a deque its record fields change under the
// accumulator's lock (the appender writes the tail batch, the sender reads
// the head). Once Drain or ExpiredBatches returned it, it belongs to the
// sender goroutine until Reenqueue puts it back. Done may run on any one
// goroutine, once.
type Batch struct {
	acc       *Accumulator   // immutable
	tp        TopicPartition // immutable
	createdAt time.Time      // immutable
	id        uint64         // immutable: creation order, for flushes (split batches keep their original's)

	// Record fields: guarded by acc.mu while in a deque.
	buf           []byte      // header space then the records, uncompressed; cap charged to the pool; holds the compressed records, or is released, once compressed (see compressRecords)
	comps         completions // one per record, in order; recycled by Deallocate
	count         int         // records; kept after Deallocate
	baseTimestamp int64       // the first record's timestamp
	maxTimestamp  int64
	appendsClosed bool // no more records; set when full, drained or split
	// wideTimestamps is set when a record's timestamp is too far from the
	// first one for the completion list: its timestamp is then read from buf, which
	// is kept until Deallocate.
	wideTimestamps bool

	// Send state: guarded by acc.mu while in a deque, the sender's otherwise.
	attempts      int
	lastAttemptAt time.Time     // creation, then each Reenqueue
	drainedAt     time.Time     // the last Drain, zero before
	backoff       time.Duration // retry backoff before the next attempt, fixed at Reenqueue
	producerID    int64
	producerEpoch int16
	baseSequence  int32

	// Compression: set by a worker under acc.mu, or by Close (see
	// compress.go); once compressed, only the sender reads them.
	compress    uint8  // compressIdle, compressQueued, compressRunning or compressDone; guarded by acc.mu
	compressed  []byte // pooled buffer of header room and the compressed records (often buf's own), or nil
	compressErr error  // why compression failed; Close returns it

	// Set by Close (sender).
	encoded []byte // the batch as sent: buf or compressed

	state       atomic.Int32    // statePending, stateDone or stateSplit
	deallocated bool            // guarded by acc.mu
	links       incompleteLinks // guarded by acc.mu: its place among the batches not yet done
	// releasePending is set (under acc.mu) when Deallocate came while a
	// worker compressed the batch: the worker releases its memory when done.
	releasePending bool
}

// TopicPartition is the batch's partition.
func (b *Batch) TopicPartition() TopicPartition { return b.tp }

// RecordCount is the number of records in the batch.
func (b *Batch) RecordCount() int { return b.count }

// CreatedAt is when the batch was created; the delivery timeout counts from
// it (split batches keep their original's).
func (b *Batch) CreatedAt() time.Time { return b.createdAt }

// Attempts is the number of times the batch was put back for a retry.
func (b *Batch) Attempts() int { return b.attempts }

// InRetry reports whether the batch was put back for a retry at least once.
func (b *Batch) InRetry() bool { return b.attempts > 0 }

// LastAttemptAt is when the batch was created or last put back for a retry;
// linger and retry backoff count from it.
func (b *Batch) LastAttemptAt() time.Time { return b.lastAttemptAt }

// DrainedAt is when Drain last took the batch (zero before).
func (b *Batch) DrainedAt() time.Time { return b.drainedAt }

// RetryBackoff is the backoff fixed at the last Reenqueue (zero before).
func (b *Batch) RetryBackoff() time.Duration { return b.backoff }

// HasSequence reports whether a base sequence is set.
func (b *Batch) HasSequence() bool { return b.baseSequence != -1 }

// BaseSequence is the batch's base sequence, -1 when unset.
func (b *Batch) BaseSequence() int32 { return b.baseSequence }

// ProducerID is the batch's producer id, -1 when unset.
func (b *Batch) ProducerID() int64 { return b.producerID }

// ProducerEpoch is the batch's producer epoch, -1 when unset.
func (b *Batch) ProducerEpoch() int16 { return b.producerEpoch }

// SetProducerState stamps the producer id, epoch and base sequence. If the
// batch is already closed it re-stamps the encoded bytes and their CRC
// without recompressing.
func (b *Batch) SetProducerState(producerID int64, epoch int16, baseSequence int32) {
	b.producerID, b.producerEpoch, b.baseSequence = producerID, epoch, baseSequence
	if b.encoded != nil {
		protocol.SetBatchProducerState(b.encoded, producerID, epoch, baseSequence)
	}
}

// ResetProducerState clears the producer state (id, epoch and sequence
// -1), for example after an epoch bump; the next SetProducerState stamps it
// again.
func (b *Batch) ResetProducerState() { b.SetProducerState(protocol.NoProducerID, -1, -1) }

// IsDone reports whether the batch has its outcome (Done ran, or it was
// replaced by SplitAndReenqueue).
func (b *Batch) IsDone() bool { return b.state.Load() != statePending }

// Encoded is the closed batch's bytes, nil before Close. They stay valid
// until Deallocate.
func (b *Batch) Encoded() []byte { return b.encoded }

// EncodedSize is the batch's size in a request: exact once compressed (or
// closed), before that an upper bound (the uncompressed size).
func (b *Batch) EncodedSize() int {
	switch {
	case b.encoded != nil:
		return len(b.encoded)
	case b.compressed != nil:
		return len(b.compressed)
	}
	return len(b.buf)
}

// isFull reports whether the batch takes no more records.
func (b *Batch) isFull(limit int) bool { return b.appendsClosed || len(b.buf) >= limit }

// recordBodySize is the body size (protocol.RecordBodySize) of a record
// appended next, given its protocol.RecordTailSize.
func (b *Batch) recordBodySize(timestamp int64, tail int) int {
	return protocol.RecordBodySizeOf(int32(b.count), timestamp-b.baseTimestamp, tail)
}

// appendRecord encodes a record at the end of the buffer, which the caller
// gave room for it, for the append call r, and adds it to the completion
// list. The record's offset delta is its index.
func (b *Batch) appendRecord(rec *Record, r *appendRequest) {
	delta := rec.Timestamp - b.baseTimestamp
	b.buf = protocol.AppendRecord(b.buf, int32(b.count), delta, rec.Key, rec.Value, rec.Headers)
	b.noteRecord(rec.Timestamp, delta)
	b.comps.add(r.call, r.owner, rec.Ref, int32(delta))
}

// noteRecord counts a record just encoded, of the given timestamp and
// timestamp delta.
func (b *Batch) noteRecord(timestamp, delta int64) {
	if delta != int64(int32(delta)) {
		b.wideTimestamps = true
	}
	b.count++
	b.maxTimestamp = max(b.maxTimestamp, timestamp)
}

// header is the batch header for the current records and producer state.
func (b *Batch) header() protocol.BatchHeader {
	attrs := int16(b.acc.cfg.Codec) & protocol.AttrCompressionMask
	if b.acc.cfg.Transactional {
		attrs |= protocol.AttrTransactional
	}
	n := int32(b.count)
	return protocol.BatchHeader{
		BaseOffset:           0,
		PartitionLeaderEpoch: -1,
		Attributes:           attrs,
		LastOffsetDelta:      n - 1,
		BaseTimestamp:        b.baseTimestamp,
		MaxTimestamp:         b.maxTimestamp,
		ProducerID:           b.producerID,
		ProducerEpoch:        b.producerEpoch,
		BaseSequence:         b.baseSequence,
		RecordCount:          n,
	}
}
