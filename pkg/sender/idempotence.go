package sender

import (
	"slices"

	"github.com/kproduce/kproduce/pkg/accumulator"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// maxInFlightBatchesPerPartition is how many batches per partition a broker
// remembers for deduplication.
const maxInFlightBatchesPerPartition = 5

// producerIDAndEpoch identifies the idempotent producer to the brokers.
type producerIDAndEpoch struct {
	id    int64
	epoch int16
}

var noProducerID = producerIDAndEpoch{id: -1, epoch: -1}

func (p producerIDAndEpoch) valid() bool { return p.id >= 0 }

// partitionSequences is the idempotence state of one partition.
type partitionSequences struct {
	nextSequence      int32                // sequence of the next new batch
	lastAckedSequence int32                // last sequence the broker acknowledged, -1 for none
	unacked           []*accumulator.Batch // batches with a sequence, not yet acknowledged, sorted by base sequence
	broken            bool                 // the sequence cannot continue under this producer id
	// resolvable are the unacknowledged batches sent before the batch that
	// broke the sequence: their sequences are still valid under the current
	// producer id, so they are sent (alone, in order) before the reset. A
	// batch whose attempt had no clear answer must be resolved so: under a
	// new producer id the broker could not recognise it as a duplicate.
	resolvable []*accumulator.Batch
	// acked is set once the broker acknowledged a batch of this partition
	// under the current producer id. Until then the broker may have no
	// state for the producer on this partition, and brokers before Kafka
	// 4.5 (KAFKA-15591) then accept any first sequence: a second batch in
	// flight could be stored in place of a first one that was refused, so
	// the first batch goes alone.
	acked bool
}

// idempotence is the idempotent producer's state (the idempotent half of
// Kafka's TransactionManager). It is owned by the Sender goroutine.
type idempotence struct {
	enabled    bool
	pid        producerIDAndEpoch
	resetting  bool // a new producer id is needed once nothing is in flight
	partitions map[accumulator.TopicPartition]*partitionSequences
}

func newIdempotence(enabled bool) *idempotence {
	return &idempotence{
		enabled:    enabled,
		pid:        noProducerID,
		partitions: make(map[accumulator.TopicPartition]*partitionSequences),
	}
}

func (s *idempotence) partition(tp accumulator.TopicPartition) *partitionSequences {
	p := s.partitions[tp]
	if p == nil {
		p = &partitionSequences{lastAckedSequence: -1}
		s.partitions[tp] = p
	}
	return p
}

// needsProducerID reports whether a producer id must be fetched before
// anything can be drained.
func (s *idempotence) needsProducerID() bool { return s.enabled && !s.pid.valid() }

// setProducerID installs a new producer id and forgets every sequence:
// unacknowledged batches are re-stamped when next drained.
func (s *idempotence) setProducerID(pid producerIDAndEpoch) {
	s.pid = pid
	s.resetting = false
	clear(s.partitions)
}

// canDrain is the accumulator's drain veto. It stamps a new batch with the
// partition's next sequence, and lets a retried batch go only when it is
// the oldest unacknowledged one of its partition, so the broker sees
// sequences in order. A new batch waits while its partition has five
// unacknowledged batches, or while the first batch under the current
// producer id is not acknowledged yet (see partitionSequences.acked).
func (s *idempotence) canDrain(b *accumulator.Batch) bool {
	if !s.enabled {
		return true
	}
	if !s.pid.valid() {
		return false
	}
	p := s.partition(b.TopicPartition())
	if b.HasSequence() && (b.ProducerID() != s.pid.id || b.ProducerEpoch() != s.pid.epoch) {
		b.ResetProducerState() // stamped under an older producer id
	}
	if s.resetting && (!b.HasSequence() || (p.broken && !slices.Contains(p.resolvable, b))) {
		return false
	}
	if b.HasSequence() {
		return len(p.unacked) > 0 && p.unacked[0] == b
	}
	if len(p.unacked) >= maxInFlightBatchesPerPartition || (!p.acked && len(p.unacked) > 0) {
		return false
	}
	b.SetProducerState(s.pid.id, s.pid.epoch, p.nextSequence)
	p.nextSequence = protocol.IncrementSequence(p.nextSequence, int32(b.RecordCount()))
	p.unacked = append(p.unacked, b) // sequences only grow, so this keeps the order
	return true
}

// acked records a batch the broker acknowledged.
func (s *idempotence) acked(b *accumulator.Batch) {
	if !s.enabled || !b.HasSequence() || b.ProducerID() != s.pid.id || b.ProducerEpoch() != s.pid.epoch {
		return
	}
	p := s.partition(b.TopicPartition())
	last := b.BaseSequence() + int32(b.RecordCount()) - 1
	if last > p.lastAckedSequence {
		p.lastAckedSequence = last
	}
	p.acked = true
	p.unacked = slices.DeleteFunc(p.unacked, func(x *accumulator.Batch) bool { return x == b })
	// Settled: the state keeps no batch that is done (its struct is reused).
	p.resolvable = slices.DeleteFunc(p.resolvable, func(x *accumulator.Batch) bool { return x == b })
}

// isNextSequence reports whether b is the batch the broker expects next on
// its partition.
func (s *idempotence) isNextSequence(b *accumulator.Batch) bool {
	p := s.partition(b.TopicPartition())
	return b.BaseSequence() == protocol.IncrementSequence(p.lastAckedSequence, 1)
}

// abandoned records a sequenced batch that will never be acknowledged
// under the current producer id. When giveBack is true the broker is known
// not to have written it (it refused the batch outright, or it was never
// sent); then, if it is the newest batch of its partition, the next batch
// simply reuses its sequence. In every other case (it may have been
// written, or later batches already carry higher sequences) the partition's
// sequence is broken and a new producer id is needed: reusing a sequence
// the broker may have stored would make it drop the next batch as a
// duplicate.
func (s *idempotence) abandoned(b *accumulator.Batch, giveBack bool) {
	if !s.enabled || !b.HasSequence() || b.ProducerID() != s.pid.id || b.ProducerEpoch() != s.pid.epoch {
		return
	}
	p := s.partition(b.TopicPartition())
	i := slices.Index(p.unacked, b)
	if i < 0 {
		return
	}
	p.unacked = slices.Delete(p.unacked, i, i+1)
	newest := i == len(p.unacked) && protocol.IncrementSequence(b.BaseSequence(), int32(b.RecordCount())) == p.nextSequence
	if giveBack && newest && !p.broken {
		p.nextSequence = b.BaseSequence()
		return
	}
	if giveBack {
		// The broker still expects b's sequence, so no later batch can have
		// been stored: only the batches before b can complete under this
		// producer id.
		s.breakSequence(b.TopicPartition(), p.unacked[:i])
		return
	}
	// b may have been stored, and so may the batches after it: each is
	// settled under this producer id before the reset (acknowledged, a
	// duplicate, or refused as out of order, which proves it was not
	// stored), so that none is stored twice under the new one.
	s.breakSequence(b.TopicPartition(), p.unacked)
}

// resolving reports whether b is being settled under the current producer
// id before a reset (see breakSequence).
func (s *idempotence) resolving(b *accumulator.Batch) bool {
	if !s.enabled || !b.HasSequence() || b.ProducerID() != s.pid.id || b.ProducerEpoch() != s.pid.epoch {
		return false
	}
	p := s.partition(b.TopicPartition())
	return p.broken && slices.Contains(p.resolvable, b)
}

// notStored records that the broker refused b as out of order while it
// was being settled: the broker still waits for an earlier sequence that
// will never come, so neither b nor any batch after it was stored. They
// are re-sent under the new producer id.
func (s *idempotence) notStored(b *accumulator.Batch) {
	p := s.partition(b.TopicPartition())
	if i := slices.Index(p.resolvable, b); i >= 0 {
		p.resolvable = p.resolvable[:i]
	}
}

// split replaces a batch the broker refused as too large by the batches it
// was split into, which carry its producer id and its sequences (see
// accumulator.Accumulator.Split), so the partition's later sequences stay
// valid.
func (s *idempotence) split(b *accumulator.Batch, parts []*accumulator.Batch) {
	if !s.enabled || !b.HasSequence() || b.ProducerID() != s.pid.id || b.ProducerEpoch() != s.pid.epoch {
		return
	}
	p := s.partition(b.TopicPartition())
	if i := slices.Index(p.unacked, b); i >= 0 {
		p.unacked = slices.Replace(p.unacked, i, i+1, parts...)
	}
	if i := slices.Index(p.resolvable, b); i >= 0 {
		p.resolvable = slices.Replace(p.resolvable, i, i+1, parts...)
	}
}

// isOldestUnacked reports whether b is the first batch of its partition
// the broker has not acknowledged (always true without idempotence or
// without a sequence).
func (s *idempotence) isOldestUnacked(b *accumulator.Batch) bool {
	if !s.enabled || !b.HasSequence() {
		return true
	}
	p := s.partition(b.TopicPartition())
	return len(p.unacked) > 0 && p.unacked[0] == b
}
