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
	batches  map[accumulator.TopicPartition][]*accumulator.Batch // per partition, in send order
}

func (f *inFlightBatches) add(b *accumulator.Batch) {
	if f.batches == nil {
		f.batches = make(map[accumulator.TopicPartition][]*accumulator.Batch)
	}
	tp := b.TopicPartition()
	f.batches[tp] = append(f.batches[tp], b)
}

func (f *inFlightBatches) remove(b *accumulator.Batch) {
	tp := b.TopicPartition()
	list := slices.DeleteFunc(f.batches[tp], func(x *accumulator.Batch) bool { return x == b })
	if len(list) == 0 {
		delete(f.batches, tp)
		return
	}
	f.batches[tp] = list
}

// expired returns the in-flight batches, not yet done, whose delivery
// timeout has passed. They stay tracked until their request completes.
func (f *inFlightBatches) expired(now time.Time, deliveryTimeout time.Duration) []*accumulator.Batch {
	var out []*accumulator.Batch
	for _, list := range f.batches {
		for _, b := range list {
			if !b.IsDone() && !now.Before(b.CreatedAt().Add(deliveryTimeout)) {
				out = append(out, b)
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

// nextExpiry is the earliest delivery deadline of the tracked batches not
// yet done; ok is false when there is none.
func (f *inFlightBatches) nextExpiry(deliveryTimeout time.Duration) (deadline time.Time, ok bool) {
	for _, list := range f.batches {
		for _, b := range list {
			if d := b.CreatedAt().Add(deliveryTimeout); !b.IsDone() && (!ok || d.Before(deadline)) {
				deadline, ok = d, true
			}
		}
	}
	return deadline, ok
}

// hasPartition reports whether a batch of tp is tracked as in flight.
func (f *inFlightBatches) hasPartition(tp accumulator.TopicPartition) bool {
	return len(f.batches[tp]) > 0
}
