package accumulator

import (
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"strings"
)

// Partitioner chooses the partition of a record that names none.
// Implementations are not safe for concurrent use; the caller serializes.
//
// Callers may follow Kafka's sticky dance: Partition, then Append with
// abortOnNewBatch; when that reports AbortForNewBatch, OnNewBatch with the
// partition just returned, then Partition again and Append for real. Every
// partitioner here keeps its contract under that dance.
type Partitioner interface {
	// Partition returns a partition in [0, numPartitions), or -1 when
	// numPartitions < 1.
	Partition(topic string, key []byte, numPartitions int) int32
	// OnNewBatch tells the partitioner that the record it just placed on
	// prevPartition would open a new batch there.
	OnNewBatch(topic string, numPartitions int, prevPartition int32)
}

// StickyPartitioner is implemented by a Partitioner whose Partition, for
// a record without a key, gives the same partition until OnNewBatch moves
// it (Kafka's sticky partitioning, as NewMurmur2Partitioner's). A producer
// may then place a run of such records with one call to Partition.
type StickyPartitioner interface {
	Partitioner
	// StickyForNullKeys reports whether that holds.
	StickyForNullKeys() bool
}

// Partitioner names accepted by ParsePartitioner.
const (
	PartitionerMurmur2    = "murmur2"
	PartitionerRoundRobin = "round-robin"
	PartitionerRandom     = "random"
	PartitionerCRC32      = "crc32"
	PartitionerConsistent = "consistent"
	PartitionerFNV1a      = "fnv1a"
)

// ParsePartitioner returns the partitioner named murmur2, round-robin,
// random, crc32, consistent or fnv1a (case-insensitive). rnd returns a
// number in [0, n); nil uses math/rand/v2.
func ParsePartitioner(name string, rnd func(n int) int) (Partitioner, error) {
	switch strings.ToLower(name) {
	case PartitionerMurmur2:
		return NewMurmur2Partitioner(rnd), nil
	case PartitionerRoundRobin:
		return NewRoundRobinPartitioner(), nil
	case PartitionerRandom:
		return NewRandomPartitioner(rnd), nil
	case PartitionerCRC32:
		return NewCRC32Partitioner(rnd), nil
	case PartitionerConsistent:
		return NewConsistentPartitioner(rnd), nil
	case PartitionerFNV1a:
		return NewFNV1aPartitioner(rnd), nil
	}
	return nil, fmt.Errorf("%w %q (want murmur2, round-robin, random, crc32, consistent or fnv1a)", ErrUnknownPartitioner, name)
}

func orDefaultRand(rnd func(n int) int) func(n int) int {
	if rnd == nil {
		return rand.IntN
	}
	return rnd
}

// pick returns rnd(n) forced into [0, n).
func pick(rnd func(n int) int, n int) int32 {
	v := rnd(n) % n
	if v < 0 {
		v += n
	}
	return int32(v)
}

// roundRobinPartitioner cycles through every partition in order, per topic.
type roundRobinPartitioner struct {
	next map[string]int // the next partition per topic
	last map[string]int32
}

// NewRoundRobinPartitioner returns a partitioner that gives each topic's
// partitions in turn, keyed or not. Under the sticky dance the partition
// refused for a new batch is given again, so none is skipped.
func NewRoundRobinPartitioner() Partitioner {
	return &roundRobinPartitioner{next: make(map[string]int), last: make(map[string]int32)}
}

// Partition gives the topic's next partition.
func (p *roundRobinPartitioner) Partition(topic string, _ []byte, n int) int32 {
	if n < 1 {
		return -1
	}
	i := p.next[topic] % n
	p.next[topic] = (i + 1) % n
	p.last[topic] = int32(i)
	return int32(i)
}

// OnNewBatch rewinds by one when prevPartition was the last given, so the
// next Partition gives it again.
func (p *roundRobinPartitioner) OnNewBatch(topic string, n int, prevPartition int32) {
	if last, ok := p.last[topic]; ok && last == prevPartition && n > 0 {
		p.next[topic] = int(prevPartition) % n
	}
}

// randomPartitioner picks a random partition per record.
type randomPartitioner struct{ rnd func(n int) int }

// NewRandomPartitioner returns a partitioner that picks a random partition
// for every record, keyed or not. rnd returns a number in [0, n); nil uses
// math/rand/v2.
func NewRandomPartitioner(rnd func(n int) int) Partitioner {
	return randomPartitioner{rnd: orDefaultRand(rnd)}
}

// Partition picks a random partition.
func (p randomPartitioner) Partition(_ string, _ []byte, n int) int32 {
	if n < 1 {
		return -1
	}
	return pick(p.rnd, n)
}

// OnNewBatch does nothing: every record is placed afresh.
func (randomPartitioner) OnNewBatch(string, int, int32) {}

// crc32Partitioner is librdkafka's consistent_random partitioner.
type crc32Partitioner struct{ rnd func(n int) int }

// NewCRC32Partitioner returns librdkafka's consistent partitioner: a keyed
// record goes to crc32(key) % n (CRC-32 IEEE); a record with a null or
// empty key goes to a random partition. rnd returns a number in [0, n);
// nil uses math/rand/v2.
func NewCRC32Partitioner(rnd func(n int) int) Partitioner {
	return crc32Partitioner{rnd: orDefaultRand(rnd)}
}

// Partition hashes the key, or picks a random partition without one.
func (p crc32Partitioner) Partition(_ string, key []byte, n int) int32 {
	if n < 1 {
		return -1
	}
	if len(key) == 0 {
		return pick(p.rnd, n)
	}
	return int32(crc32.ChecksumIEEE(key) % uint32(n))
}

// OnNewBatch does nothing: keyed records always hash the same way.
func (crc32Partitioner) OnNewBatch(string, int, int32) {}
