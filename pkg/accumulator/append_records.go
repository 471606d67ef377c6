package accumulator

import (
	"context"
	"fmt"
	"time"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// Record is one record for Append and AppendRecords. Key, Value and
// Headers are copied into the batch buffer; the caller may reuse them
// afterwards.
type Record struct {
	Timestamp int64 // ms since the epoch
	Key       []byte
	Value     []byte
	Headers   []protocol.Header
	// Ref is the caller's reference to the record, handed back in its
	// Result; nil costs nothing.
	Ref any
}

// AppendRecords appends recs, in order, to the batches of tp, as Append
// would one after the other, but under one acquisition of the lock (more
// only when it waits for buffer memory) and with one wakeup of the sender
// at most: the batch-at-a-time form of Append for a caller that routed a
// run of records to one partition. owner is the owner of every record
// (Result.Owner). now is every record's read time: a batch opened by one
// of them counts its linger and delivery timeout from it.
//
// It returns how many records, from the front, were appended, and the
// results of those appends combined (NewBatchCreated and BatchIsFull when
// any record had them). When that is less than len(recs), record n was
// not appended, because:
//   - abortOnNewBatch is set and it would need a new batch
//     (AbortForNewBatch; err is nil), or
//   - it cannot be appended: err wraps ErrRecordTooLarge; the records
//     after it were not looked at and may be appended by another call, or
//   - err is of the call: ErrInvalidPartition, ErrClosed, or ctx's error
//     while waiting for memory.
func (a *Accumulator) AppendRecords(ctx context.Context, tp TopicPartition, recs []Record, owner any,
	abortOnNewBatch bool, now time.Time) (int, AppendResult, error) {
	if err := checkPartition(tp); err != nil {
		return 0, AppendResult{}, err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	r := appendRequest{tp: tp, abortOnNewBatch: abortOnNewBatch, now: now, owner: owner}
	var sum AppendResult
	n := 0
	for {
		k, res, need, err := a.appendRun(&r, recs[n:])
		n += k
		sum.NewBatchCreated = sum.NewBatchCreated || res.NewBatchCreated
		sum.BatchIsFull = sum.BatchIsFull || res.BatchIsFull
		sum.AbortForNewBatch = res.AbortForNewBatch
		if need == 0 {
			a.pool.release(r.spare)
			if sum.NewBatchCreated || sum.BatchIsFull {
				a.signal()
			}
			return n, sum, err
		}
		if sum.NewBatchCreated || sum.BatchIsFull {
			a.signal() // what filled up may be sent while we wait
		}
		// Wait for memory without the lock (Kafka allocates outside the
		// deque lock too), then go on: the deque may have changed.
		if r.spare, err = a.pool.allocate(ctx, need); err != nil {
			return n, sum, fmt.Errorf("append to %s/%d: %w", tp.Topic, tp.Partition, err)
		}
	}
}

// appendRun appends records from the front of recs under the lock, as long
// as memory allows without waiting. It returns how many it appended, their
// combined result, and need > 0 (the capacity to allocate) when the next
// one must wait for memory.
func (a *Accumulator) appendRun(r *appendRequest, recs []Record) (int, AppendResult, int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return 0, AppendResult{}, 0, fmt.Errorf("append to %s/%d: %w", r.tp.Topic, r.tp.Partition, ErrClosed)
	}
	if r.call == 0 {
		a.calls++
		r.call = a.calls
	}
	dq := a.dequeLocked(r.tp)
	var sum AppendResult
	for i := 0; i < len(recs); i++ {
		if last := dq.last(); last != nil && !last.appendsClosed {
			k := a.appendFitting(last, recs[i:], r)
			if k > 0 {
				sum.BatchIsFull = sum.BatchIsFull || dq.len() > 1 || last.isFull(a.limit)
				if i += k; i == len(recs) {
					break
				}
			}
		}
		rec := &recs[i]
		tail, own, err := checkSize(&a.cfg, r.tp, rec.Key, rec.Value, rec.Headers)
		if err != nil {
			return i, sum, 0, err
		}
		res, need := a.appendLocked(dq, r, rec, tail, own)
		if need > 0 || res.AbortForNewBatch {
			sum.AbortForNewBatch = res.AbortForNewBatch
			return i, sum, need, nil
		}
		sum.NewBatchCreated = sum.NewBatchCreated || res.NewBatchCreated
		sum.BatchIsFull = sum.BatchIsFull || res.BatchIsFull
	}
	return len(recs), sum, 0, nil
}

// appendFitting appends records from the front of recs to b, the open
// tail batch, while each fits in its buffer as it is and within fitLimit
// (so that no size check of Append can fail), and returns how many it
// appended: the common case of a run, without the checks and branches of
// appendLocked. a.mu must be held.
func (a *Accumulator) appendFitting(b *Batch, recs []Record, r *appendRequest) int {
	limit := min(a.fitLimit, cap(b.buf))
	n := len(recs)
	for i := range recs {
		rec := &recs[i]
		delta := rec.Timestamp - b.baseTimestamp
		buf, ok := protocol.AppendRecordWithin(b.buf, limit, int32(b.count), delta, rec.Key, rec.Value, rec.Headers)
		if !ok {
			n = i
			break
		}
		b.buf = buf
		b.noteRecord(rec.Timestamp, delta)
	}
	b.comps.addRun(r.call, r.owner, recs[:n], b.baseTimestamp)
	return n
}
