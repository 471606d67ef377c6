package sender

import (
	"slices"

	"github.com/kproduce/kproduce/pkg/accumulator"
)

// breakSequence marks a partition whose sequence cannot continue under the
// current producer id: the producer must get a new one once nothing is in
// flight. resolvable are the partition's unacknowledged batches that come
// before the break and may still complete under the current id (none when
// the broker lost the producer's state). A second break keeps only the
// batches before both.
func (s *idempotence) breakSequence(tp accumulator.TopicPartition, resolvable []*accumulator.Batch) {
	if !s.enabled {
		return
	}
	p := s.partition(tp)
	if p.broken {
		p.resolvable = slices.DeleteFunc(p.resolvable, func(b *accumulator.Batch) bool { return !slices.Contains(resolvable, b) })
	} else {
		p.resolvable = slices.Clone(resolvable)
	}
	p.broken = true
	s.resetting = true
}

// readyToReset reports whether a requested reset can happen now: no
// request is in flight and no partition still has a batch that can be
// resolved under the current producer id (any unacknowledged batch of an
// unbroken partition, the batches before the break of a broken one).
func (s *idempotence) readyToReset(inFlightRequests int) bool {
	if !s.resetting || inFlightRequests > 0 {
		return false
	}
	for _, p := range s.partitions {
		if !p.broken && len(p.unacked) > 0 {
			return false
		}
		for _, b := range p.resolvable {
			if slices.Contains(p.unacked, b) {
				return false
			}
		}
	}
	return true
}
