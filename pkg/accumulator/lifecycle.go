package accumulator

import (
	"context"
	"fmt"
)

// BeginFlush makes every batch immediately sendable until the matching
// AwaitFlushCompletion returns, and marks the batches created so far as
// the ones to wait for.
func (a *Accumulator) BeginFlush() {
	a.mu.Lock()
	a.flushes++
	a.flushTarget = a.nextID
	a.mu.Unlock()
	a.signal()
}

// AwaitFlushCompletion waits until every batch created before the latest
// BeginFlush (without a flush in progress: before this call) is done, its
// callbacks run, or until ctx is done (its error is returned wrapped). It
// ends one flush begun by BeginFlush either way.
func (a *Accumulator) AwaitFlushCompletion(ctx context.Context) error {
	a.mu.Lock()
	target := a.nextID
	if a.flushes > 0 {
		target = a.flushTarget
	}
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		a.flushes = max(a.flushes-1, 0)
		a.mu.Unlock()
	}()
	for {
		a.mu.Lock()
		if !a.incompleteBeforeLocked(target) {
			a.mu.Unlock()
			return nil
		}
		if a.flushDone == nil {
			a.flushDone = make(chan struct{})
		}
		ch := a.flushDone
		a.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("flush: %w", ctx.Err())
		}
	}
}

// incompleteBeforeLocked reports whether a batch with an id below target is
// not done yet. a.mu must be held.
func (a *Accumulator) incompleteBeforeLocked(target uint64) bool {
	return a.incomplete.head != nil && a.incomplete.head.id < target
}

// HasUndrained reports whether any batch is still in a deque.
func (a *Accumulator) HasUndrained() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, dq := range a.order {
		if dq.len() > 0 {
			return true
		}
	}
	return false
}

// HasIncomplete reports whether any batch is not done yet, in a deque or in
// flight.
func (a *Accumulator) HasIncomplete() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.incomplete.n > 0
}

// Close stops appends: blocked and later Appends return ErrClosed. Every
// batch becomes sendable, so the sender can finish what is queued.
func (a *Accumulator) Close() {
	a.mu.Lock()
	a.closed = true
	a.mu.Unlock()
	a.pool.close()
	a.signal()
}

// AbortIncompleteBatches closes the accumulator, then fails every batch
// still in a deque with err (Done) and releases its memory (a forced
// close). Batches in flight are the sender's to fail.
func (a *Accumulator) AbortIncompleteBatches(err error) {
	a.mu.Lock()
	a.closed = true
	var batches []*Batch
	for _, dq := range a.order {
		batches = dq.takeAll(batches)
	}
	for _, b := range batches {
		b.appendsClosed = true
	}
	a.mu.Unlock()
	a.pool.close()
	for _, b := range batches {
		b.Done(-1, -1, err)
		a.Deallocate(b)
	}
	a.signal()
}

// TakeUndrained removes every batch still in a deque, closes it for
// appends and returns them, oldest first per partition, without completing
// them: the caller (the sender aborting a transaction, Kafka's
// abortUndrainedBatches) fails each with Done and releases it with
// Deallocate. Unlike AbortIncompleteBatches it leaves the accumulator open.
func (a *Accumulator) TakeUndrained() []*Batch {
	a.mu.Lock()
	defer a.mu.Unlock()
	var batches []*Batch
	for _, dq := range a.order {
		batches = dq.takeAll(batches)
	}
	for _, b := range batches {
		b.appendsClosed = true
	}
	return batches
}
