package accumulator

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// headerRoom is the space left at the front of a batch buffer for the
// record batch header, written by Close.
const headerRoom = protocol.RecordBatchHeaderSize

// maxRecordBytes bounds the raw bytes of one record so that its varint
// lengths and sizes cannot overflow.
const maxRecordBytes = math.MaxInt32 / 2

// Append encodes the record straight into the open batch of tp (the varint
// record is appended to the batch buffer; per record only what Done
// reports besides is kept: see completions). rec.Timestamp is in ms since
// the epoch; owner (comparable or not, never compared) and rec.Ref come back
// in the record's Result. It blocks while buffer memory is exhausted, until
// memory is freed, ctx is done (its error is returned wrapped) or the
// accumulator is closed (ErrClosed). A record that could never fit in the
// buffer memory fails at once with ErrRecordTooLarge.
//
// If abortOnNewBatch is true and the record would need a new batch, Append
// returns with AbortForNewBatch set and appends nothing, so that a sticky
// partitioner can choose another partition first.
func (a *Accumulator) Append(ctx context.Context, tp TopicPartition, rec Record, owner any,
	abortOnNewBatch bool, now time.Time) (AppendResult, error) {
	recs := [1]Record{rec}
	_, res, err := a.AppendRecords(ctx, tp, recs[:], owner, abortOnNewBatch, now)
	return res, err
}

// appendRequest is one append call's partition and options, and the memory
// it holds between attempts.
type appendRequest struct {
	tp              TopicPartition
	abortOnNewBatch bool
	now             time.Time
	owner           any    // the owner of the call's records (Result.Owner)
	call            uint64 // the call's number, from Accumulator.calls; 0 until set under the lock
	spare           []byte // memory obtained while unlocked, not yet used
}

// checkRecord validates tp and the record's size against cfg; it returns
// the size of a batch holding only this record.
func checkRecord(cfg *Config, tp TopicPartition, key, value []byte, headers []protocol.Header) (int, error) {
	if err := checkPartition(tp); err != nil {
		return 0, err
	}
	_, own, err := checkSize(cfg, tp, key, value, headers)
	return own, err
}

// checkSize checks the record's size against cfg; it returns the size of
// its key, value and headers encoded (protocol.RecordTailSize) and the size
// of a batch holding only this record.
func checkSize(cfg *Config, tp TopicPartition, key, value []byte, headers []protocol.Header) (tail, own int, _ error) {
	raw := int64(len(key)) + int64(len(value)) + int64(len(headers))*10
	for i := range headers {
		raw += int64(len(headers[i].Key)) + int64(len(headers[i].Value))
	}
	if raw > maxRecordBytes {
		return 0, 0, fmt.Errorf("append to %s/%d: %w: %d bytes of key, value and headers exceed the buffer memory of %d bytes",
			tp.Topic, tp.Partition, ErrRecordTooLarge, raw, cfg.BufferMemory)
	}
	tail = protocol.RecordTailSize(key, value, headers)
	body := protocol.RecordBodySizeOf(0, 0, tail)
	own = headerRoom + protocol.VarintLen(int32(body)) + body
	if cfg.MaxRequestSize > 0 && own > cfg.MaxRequestSize {
		return 0, 0, fmt.Errorf("%w: %d bytes in a batch, more than the maximum request size of %d",
			ErrRecordTooLarge, own, cfg.MaxRequestSize)
	}
	if int64(own) > cfg.BufferMemory {
		return 0, 0, fmt.Errorf("append to %s/%d: %w: a batch of %d bytes for this record exceeds the buffer memory of %d bytes",
			tp.Topic, tp.Partition, ErrRecordTooLarge, own, cfg.BufferMemory)
	}
	return tail, own, nil
}

// checkPartition rejects a partition no record can be appended to.
func checkPartition(tp TopicPartition) error {
	if tp.Partition < 0 || tp.Topic == "" {
		return fmt.Errorf("append to %q/%d: %w", tp.Topic, tp.Partition, ErrInvalidPartition)
	}
	return nil
}

// appendLocked appends rec (of protocol.RecordTailSize tail, whose lone
// batch would take own bytes) to dq if memory allows without waiting. It
// returns need > 0, the capacity to allocate, when it must wait for
// memory. a.mu must be held.
func (a *Accumulator) appendLocked(dq *deque, r *appendRequest, rec *Record, tail, own int) (AppendResult, int) {
	if last := dq.last(); last != nil && !last.appendsClosed {
		body := last.recordBodySize(rec.Timestamp, tail)
		need := len(last.buf) + protocol.VarintLen(int32(body)) + body
		if need <= a.limit {
			if need > cap(last.buf) {
				grown := a.pool.growSize(cap(last.buf), need)
				buf, ok := a.takeBuffer(r, grown)
				if !ok {
					return AppendResult{}, grown
				}
				buf = buf[:len(last.buf)]
				copy(buf, last.buf)
				a.pool.release(last.buf)
				last.buf = buf
			}
			last.appendRecord(rec, r)
			return AppendResult{BatchIsFull: dq.len() > 1 || last.isFull(a.limit)}, 0
		}
		last.appendsClosed = true
		a.noteFillLocked(dq, a.limit)
		a.submitLocked(last) // compressed while the next one fills
	}
	if r.abortOnNewBatch {
		return AppendResult{AbortForNewBatch: true}, 0
	}
	size := a.pool.sizeFor(max(own, dq.fill))
	buf, ok := a.takeBuffer(r, size)
	if !ok {
		return AppendResult{}, size
	}
	b := a.newBatchLocked(r.tp, buf, rec.Timestamp, r.now, a.nextID)
	a.nextID++
	b.appendRecord(rec, r)
	dq.pushBack(b)
	if own > a.limit {
		b.appendsClosed = true // an oversized record travels alone
		a.submitLocked(b)
	}
	return AppendResult{NewBatchCreated: true, BatchIsFull: dq.len() > 1 || b.isFull(a.limit)}, 0
}

// noteFillLocked records that a batch of dq closed for appends holding n
// buffer bytes (at most the batch limit): dq's next batch starts with a
// buffer of that size class, and so does the first batch of a partition
// not seen yet. a.mu must be held.
func (a *Accumulator) noteFillLocked(dq *deque, n int) {
	n = min(n, a.limit)
	dq.fill = n
	a.lastFill = n
}

// takeBuffer returns a buffer of at least size bytes: the spare one when it
// is large enough (a smaller spare is released), else one the pool can give
// without waiting.
func (a *Accumulator) takeBuffer(r *appendRequest, size int) ([]byte, bool) {
	if r.spare != nil {
		spare := r.spare
		r.spare = nil
		if cap(spare) >= size {
			return spare, true
		}
		a.pool.release(spare)
	}
	return a.pool.tryAllocate(size)
}
