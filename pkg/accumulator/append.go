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
// record is appended to the batch buffer; per record only its Position is
// kept besides). timestamp is in ms since the epoch. It blocks while buffer
// memory is exhausted, until memory is freed, ctx is done (its error is
// returned wrapped) or the accumulator is closed (ErrClosed). A record
// that could never fit in the buffer memory fails at once with
// ErrRecordTooLarge.
//
// If abortOnNewBatch is true and the record would need a new batch, Append
// returns with AbortForNewBatch set and appends nothing, so that a sticky
// partitioner can choose another partition first.
func (a *Accumulator) Append(ctx context.Context, tp TopicPartition, timestamp int64, key, value []byte,
	headers []protocol.Header, pos Position, abortOnNewBatch bool, now time.Time) (AppendResult, error) {
	own, err := checkRecord(&a.cfg, tp, key, value, headers)
	if err != nil {
		return AppendResult{}, err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	r := appendRequest{tp: tp, timestamp: timestamp, key: key, value: value, headers: headers,
		pos: pos, abortOnNewBatch: abortOnNewBatch, own: own, now: now}
	for {
		res, need, err := a.tryAppend(&r)
		if need == 0 {
			a.pool.release(r.spare)
			if err == nil && (res.NewBatchCreated || res.BatchIsFull) {
				a.signal()
			}
			return res, err
		}
		// Wait for memory without the lock (Kafka allocates outside the
		// deque lock too), then try again: the deque may have changed.
		if r.spare, err = a.pool.allocate(ctx, need); err != nil {
			return AppendResult{}, fmt.Errorf("append to %s/%d: %w", tp.Topic, tp.Partition, err)
		}
	}
}

// appendRequest is one Append call's arguments and the memory it holds
// between attempts.
type appendRequest struct {
	tp              TopicPartition
	timestamp       int64
	key, value      []byte
	headers         []protocol.Header
	pos             Position
	abortOnNewBatch bool
	own             int // the size of a batch holding only this record
	now             time.Time
	spare           []byte // memory obtained while unlocked, not yet used
}

// checkRecord validates tp and the record's size against cfg; it returns
// the size of a batch holding only this record.
func checkRecord(cfg *Config, tp TopicPartition, key, value []byte, headers []protocol.Header) (int, error) {
	if tp.Partition < 0 || tp.Topic == "" {
		return 0, fmt.Errorf("append to %q/%d: %w", tp.Topic, tp.Partition, ErrInvalidPartition)
	}
	raw := int64(len(key)) + int64(len(value)) + int64(len(headers))*10
	for i := range headers {
		raw += int64(len(headers[i].Key)) + int64(len(headers[i].Value))
	}
	if raw > maxRecordBytes {
		return 0, fmt.Errorf("append to %s/%d: %w: %d bytes of key, value and headers exceed the buffer memory of %d bytes",
			tp.Topic, tp.Partition, ErrRecordTooLarge, raw, cfg.BufferMemory)
	}
	own := headerRoom + protocol.RecordSize(0, 0, key, value, headers)
	if cfg.MaxRequestSize > 0 && own > cfg.MaxRequestSize {
		return 0, fmt.Errorf("%w: %d bytes in a batch, more than the maximum request size of %d",
			ErrRecordTooLarge, own, cfg.MaxRequestSize)
	}
	if int64(own) > cfg.BufferMemory {
		return 0, fmt.Errorf("append to %s/%d: %w: a batch of %d bytes for this record exceeds the buffer memory of %d bytes",
			tp.Topic, tp.Partition, ErrRecordTooLarge, own, cfg.BufferMemory)
	}
	return own, nil
}

// tryAppend appends under the lock if memory allows without waiting. It
// returns need > 0, the capacity to allocate, when it must wait for memory.
func (a *Accumulator) tryAppend(r *appendRequest) (AppendResult, int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return AppendResult{}, 0, fmt.Errorf("append to %s/%d: %w", r.tp.Topic, r.tp.Partition, ErrClosed)
	}
	dq := a.dequeLocked(r.tp)
	if last := dq.last(); last != nil && !last.appendsClosed {
		need := len(last.buf) + last.recordSize(r.timestamp, r.key, r.value, r.headers)
		if need <= a.limit {
			if need > cap(last.buf) {
				grown := a.pool.growSize(cap(last.buf), need)
				buf, ok := a.takeBuffer(r, grown)
				if !ok {
					return AppendResult{}, grown, nil
				}
				buf = buf[:len(last.buf)]
				copy(buf, last.buf)
				a.pool.release(last.buf)
				last.buf = buf
			}
			last.appendRecord(r.timestamp, r.key, r.value, r.headers, r.pos)
			return AppendResult{BatchIsFull: dq.len() > 1 || last.isFull(a.limit)}, 0, nil
		}
		last.appendsClosed = true
		a.noteFillLocked(dq, a.limit)
	}
	if r.abortOnNewBatch {
		return AppendResult{AbortForNewBatch: true}, 0, nil
	}
	size := a.pool.sizeFor(max(r.own, dq.fill))
	buf, ok := a.takeBuffer(r, size)
	if !ok {
		return AppendResult{}, size, nil
	}
	b := a.newBatchLocked(r.tp, buf, r.timestamp, r.now, a.nextID)
	a.nextID++
	b.appendRecord(r.timestamp, r.key, r.value, r.headers, r.pos)
	if r.own > a.limit {
		b.appendsClosed = true // an oversized record travels alone
	}
	dq.pushBack(b)
	return AppendResult{NewBatchCreated: true, BatchIsFull: dq.len() > 1 || b.isFull(a.limit)}, 0, nil
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
