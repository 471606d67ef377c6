package accumulator

import "time"

// Reenqueue puts a batch that will be retried back at the front of its
// deque, behind any batches there with a lower base sequence so that a
// deque stays ordered by sequence (Kafka's insertInSequenceOrder). It counts
// the attempt, restarts the wait from now and fixes the backoff before the
// next attempt: RetryBackoff doubled per earlier attempt, capped at
// RetryBackoffMax, times the injected jitter.
func (a *Accumulator) Reenqueue(b *Batch, now time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	b.attempts++
	if now.After(b.lastAttemptAt) {
		b.lastAttemptAt = now
	}
	b.backoff = a.cfg.retryBackoff(b.attempts)
	b.appendsClosed = true
	a.dequeLocked(b.tp).insertInSequenceOrder(b)
}

// ExpiredBatches removes and returns the batches whose delivery timeout
// (CreatedAt + DeliveryTimeout) has passed, scanning each deque from its
// head and stopping at the first batch still in time, as Kafka does. The
// caller completes them with an error (Done) and deallocates them.
func (a *Accumulator) ExpiredBatches(now time.Time) []*Batch {
	a.mu.Lock()
	defer a.mu.Unlock()
	var expired []*Batch
	a.nextExpiry = time.Time{}
	for _, dq := range a.order {
		for dq.len() > 0 {
			first := dq.first()
			deadline := first.createdAt.Add(a.cfg.DeliveryTimeout)
			if now.Before(deadline) {
				if a.nextExpiry.IsZero() || deadline.Before(a.nextExpiry) {
					a.nextExpiry = deadline
				}
				break
			}
			dq.pollFirst()
			first.appendsClosed = true
			expired = append(expired, first)
		}
	}
	return expired
}

// NextBatchExpiry is the earliest delivery deadline of the head batches
// seen by the last ExpiredBatches call; ok is false when there was none.
func (a *Accumulator) NextBatchExpiry() (deadline time.Time, ok bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.nextExpiry, !a.nextExpiry.IsZero()
}
