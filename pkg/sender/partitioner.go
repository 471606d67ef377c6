package sender

import (
	"fmt"

	"github.com/kproduce/kproduce/pkg/accumulator"
)

// Partitioner chooses the partition of each record. It is called by one
// goroutine at a time, in record order per topic.
//
// The producer follows Kafka's sticky dance: Partition, then, when the
// record would open a new batch on that partition, OnNewBatch with it and
// Partition once more, whose answer the record keeps. A partitioner that
// gives records without a key one partition until OnNewBatch moves it (as
// Kafka's default does) lets the producer place many such records with one
// call to Partition; it says so by implementing StickyForNullKeys.
type Partitioner interface {
	// Partition returns a partition in [0, numPartitions) for a record of
	// topic with key (nil: null).
	Partition(topic string, key []byte, numPartitions int) int32
	// OnNewBatch tells the partitioner that the record it just placed on
	// prevPartition would open a new batch there.
	OnNewBatch(topic string, numPartitions int, prevPartition int32)
}

// The partitioners NewPartitioner knows.
const (
	// PartitionerMurmur2 is Java's default: murmur2(key) for keyed
	// records, sticky for the others.
	PartitionerMurmur2 = accumulator.PartitionerMurmur2
	// PartitionerRoundRobin gives each topic's partitions in turn.
	PartitionerRoundRobin = accumulator.PartitionerRoundRobin
	// PartitionerRandom picks a random partition per record.
	PartitionerRandom = accumulator.PartitionerRandom
	// PartitionerCRC32 is librdkafka's consistent_random: crc32(key) for
	// non-empty keys, random for the others.
	PartitionerCRC32 = accumulator.PartitionerCRC32
	// PartitionerConsistent is librdkafka's consistent: crc32 of every
	// non-null key, empty ones too; random for null keys.
	PartitionerConsistent = accumulator.PartitionerConsistent
	// PartitionerFNV1a is librdkafka's fnv1a (Sarama's hash partitioner):
	// fnv1a(key) for keyed records, sticky for the others.
	PartitionerFNV1a = accumulator.PartitionerFNV1a
)

// Partitioners returns the names NewPartitioner knows, the default first.
func Partitioners() []string {
	return []string{PartitionerMurmur2, PartitionerRoundRobin, PartitionerRandom, PartitionerCRC32,
		PartitionerConsistent, PartitionerFNV1a}
}

// NewPartitioner returns the partitioner called name (see the Partitioner
// names; any case). rnd returns a uniform number in [0, n) for the random
// choices; nil uses math/rand/v2.
func NewPartitioner(name string, rnd func(n int) int) (Partitioner, error) {
	p, err := accumulator.ParsePartitioner(name, rnd)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return p, nil
}

// manualPartitioner places each record in its own Partition (see
// ManualPartitioner).
type manualPartitioner struct{ fallback Partitioner }

// ManualPartitioner places each record in the partition it names (its
// Partition field); a record whose Partition is negative (AnyPartition)
// goes where fallback places it, or fails when fallback is nil. A record
// naming a partition the topic does not have fails with
// ErrUnknownPartition.
func ManualPartitioner(fallback Partitioner) Partitioner {
	return &manualPartitioner{fallback: fallback}
}

// Partition is the fallback's choice; the producer places records that
// name their partition itself.
func (m *manualPartitioner) Partition(topic string, key []byte, n int) int32 {
	if m.fallback == nil {
		return -1
	}
	return m.fallback.Partition(topic, key, n)
}

// OnNewBatch tells the fallback.
func (m *manualPartitioner) OnNewBatch(topic string, n int, prev int32) {
	if m.fallback != nil {
		m.fallback.OnNewBatch(topic, n, prev)
	}
}

// StickyForNullKeys reports whether the fallback is sticky (see
// Partitioner).
func (m *manualPartitioner) StickyForNullKeys() bool { return isSticky(m.fallback) }

// isSticky reports whether p gives records without a key one partition
// until OnNewBatch (accumulator.StickyPartitioner).
func isSticky(p Partitioner) bool {
	sp, ok := p.(accumulator.StickyPartitioner)
	return ok && sp.StickyForNullKeys()
}
