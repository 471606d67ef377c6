package sender

import (
	"slices"
	"time"

	"github.com/kproduce/kproduce/pkg/accumulator"
)

// inFlightBatches tracks the batches of Produce requests that have been
// sent and not completed, so their delivery timeout is enforced while they
// are in flight. Owned by the Sender goroutine.
type inFlightBatches struct {
	requests int                                                 // Produce requests sent and not completed
	batches  map[accumulator.TopicPartition][]*accumulator.Batch // per partition, in send order; an emptied list stays, for its memory
	n        int                                                 // batches tracked
	// oldest is at or before the creation of every tracked batch not yet
	// done (zero when there is none): until the delivery timeout counted
	// from it has passed none has expired, and the batches need not be
	// looked at each turn (thousands with many partitions).
	oldest time.Time
}

func (f *inFlightBatches) add(b *accumulator.Batch) {
	if f.batches == nil {
		f.batches = make(map[accumulator.TopicPartition][]*accumulator.Batch)
	}
	tp := b.TopicPartition()
	f.batches[tp] = append(f.batches[tp], b)
	f.n++
	if f.oldest.IsZero() || b.CreatedAt().Before(f.oldest) {
		f.oldest = b.CreatedAt()
	}
}

func (f *inFlightBatches) remove(b *accumulator.Batch) {
	tp := b.TopicPartition()
	list := f.batches[tp]
	if i := slices.Index(list, b); i >= 0 {
		f.batches[tp] = slices.Delete(list, i, i+1)
		if f.n--; f.n == 0 {
			f.oldest = time.Time{}
		}
	}
}

// expired returns the in-flight batches, not yet done, whose delivery
// timeout has passed. They stay tracked until their request completes.
// It looks at the batches only once the oldest may have expired.
func (f *inFlightBatches) expired(now time.Time, deliveryTimeout time.Duration) []*accumulator.Batch {
	if f.oldest.IsZero() || now.Before(f.oldest.Add(deliveryTimeout)) {
		return nil
	}
	var out []*accumulator.Batch
	f.oldest = time.Time{}
	for _, list := range f.batches {
		for _, b := range list {
			switch created := b.CreatedAt(); {
			case b.IsDone():
			case !now.Before(created.Add(deliveryTimeout)):
				out = append(out, b)
			case f.oldest.IsZero() || created.Before(f.oldest):
				f.oldest = created // the oldest still to expire
			}
		}
	}
	return out
}

// all returns every tracked batch not yet done.
func (f *inFlightBatches) all() []*accumulator.Batch {
	var out []*accumulator.Batch
	for _, list := range f.batches {
		for _, b := range list {
			if !b.IsDone() {
				out = append(out, b)
			}
		}
	}
	return out
}

// has reports whether b is tracked as in flight.
func (f *inFlightBatches) has(b *accumulator.Batch) bool {
	return slices.Contains(f.batches[b.TopicPartition()], b)
}

// nextExpiry is at or before the earliest delivery deadline of the
// tracked batches not yet done (exact after expired looked at them); ok is
// false when there is none.
func (f *inFlightBatches) nextExpiry(deliveryTimeout time.Duration) (deadline time.Time, ok bool) {
	if f.oldest.IsZero() {
		return time.Time{}, false
	}
	return f.oldest.Add(deliveryTimeout), true
}

// hasPartition reports whether a batch of tp is tracked as in flight.
func (f *inFlightBatches) hasPartition(tp accumulator.TopicPartition) bool {
	return len(f.batches[tp]) > 0
}
