package sender

import (
	"context"
	"sync/atomic"
)

// ProduceBatchDone is ProduceBatch with a completion for the whole call:
// done (which may be nil) runs exactly once, after every record the call
// handled has its outcome and that record's promise returned, whatever
// the outcome (a delivery or a failure, after retries or a split of its
// batch; a refusal at once; an aborted transaction; Close); a record
// delivered under SkipDeliveredPromises gets no promise: done then follows
// its batch's delivery. From then on the producer refers to nothing the call's
// records referenced, their Opaque values included: a caller may reuse
// whatever those pointed to (the memory of one read, say), which a
// promise alone cannot tell it, since promises end one record at a time.
//
// done runs on the goroutine that completed the call's last record (the
// Sender's, or Close's for records it aborts), or before
// ProduceBatchDone returns when no record the call took is left waiting
// by then: when it took none (an error before the first, every record
// refused at once), in a dry run (whose records complete during the
// call), or when the last of them completed before the call returned.
// Like a promise, done must not block: it runs between the outcomes of
// other records.
//
// The records not taken (the one at the index returned with an error, and
// those after it) are the caller's at once, as with ProduceBatch.
func (p *Producer) ProduceBatchDone(ctx context.Context, recs []*Record, promise func(*Record, error), done func()) (int, error) {
	if done == nil {
		return p.ProduceBatch(ctx, recs, promise)
	}
	if promise == nil {
		promise = func(*Record, error) {}
	}
	if p.dry != nil {
		n, err := p.dry.produce(ctx, p, recs, promise)
		done()
		return n, err
	}
	c := p.calls.Get().(*batchCall)
	c.p, c.promise, c.done = p, promise, done
	// One for each record until it is known not taken, one for the call:
	// the count reaches zero only once the call returned and every record
	// it took was reported.
	c.pending.Store(int64(len(recs)) + 1)
	n, err := p.produce(ctx, recs, nil, c, promise)
	c.release(int64(len(recs)-n) + 1)
	return n, err
}

// batchCall is the owner in the accumulator of the records of one
// ProduceBatchDone call: their promise, and the call's completion. It is
// reused from call to call (Producer.calls) once done ran.
type batchCall struct {
	p       *Producer
	promise func(*Record, error)
	done    func()
	// pending counts the records of the call whose outcome is not reported
	// yet, plus one while the call runs. The records are counted at once:
	// those the accumulator completes come off with their owner run
	// (accumulator.Config.OnOwnerRun), those refused at once as they are
	// refused, those not taken when the call returns.
	pending atomic.Int64
}

func newBatchCall() any { return new(batchCall) }

// release takes n records off the count and, when it reaches zero, runs
// done and frees the call for another.
func (c *batchCall) release(n int64) {
	if c.pending.Add(-n) != 0 {
		return
	}
	p, done := c.p, c.done
	c.p, c.promise, c.done = nil, nil, nil
	done()
	p.calls.Put(c)
}

// ownerRunDone is the accumulator's OnOwnerRun: records of a
// ProduceBatchDone call have their outcome.
func ownerRunDone(owner any, records int) {
	if c, ok := owner.(*batchCall); ok {
		c.release(int64(records))
	}
}
