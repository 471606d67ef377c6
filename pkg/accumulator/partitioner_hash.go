package accumulator

import "hash/crc32"

// consistentPartitioner is librdkafka's consistent partitioner.
type consistentPartitioner struct{ rnd func(n int) int }

// NewConsistentPartitioner returns librdkafka's consistent partitioner: a
// record with a key, an empty one included, goes to crc32(key) % n (CRC-32
// IEEE; an empty key to partition 0); a record with a null key goes to a
// random partition. rnd returns a number in [0, n); nil uses math/rand/v2.
func NewConsistentPartitioner(rnd func(n int) int) Partitioner {
	return consistentPartitioner{rnd: orDefaultRand(rnd)}
}

// Partition hashes the key, or picks a random partition without one.
func (p consistentPartitioner) Partition(_ string, key []byte, n int) int32 {
	if n < 1 {
		return -1
	}
	if key == nil {
		return pick(p.rnd, n)
	}
	return int32(crc32.ChecksumIEEE(key) % uint32(n))
}

// OnNewBatch does nothing: keyed records always hash the same way.
func (consistentPartitioner) OnNewBatch(string, int, int32) {}

// fnv1aPartitioner is librdkafka's fnv1a partitioner, which is Sarama's
// default hash partitioner.
type fnv1aPartitioner struct {
	sticky *murmur2Partitioner // places the records with a null key
}

// NewFNV1aPartitioner returns librdkafka's fnv1a partitioner (Sarama's
// NewHashPartitioner): a record with a key, an empty one included, goes to
// |fnv1a32(key) as int32| % n; records with a null key stick to a partition
// until its batch is full, as with murmur2. rnd returns a number in [0, n);
// nil uses math/rand/v2.
func NewFNV1aPartitioner(rnd func(n int) int) Partitioner {
	return fnv1aPartitioner{sticky: &murmur2Partitioner{rnd: orDefaultRand(rnd), sticky: make(map[string]int32)}}
}

// Partition hashes the key, or gives the sticky partition without one.
func (p fnv1aPartitioner) Partition(topic string, key []byte, n int) int32 {
	if n < 1 {
		return -1
	}
	if key == nil {
		return p.sticky.Partition(topic, nil, n)
	}
	return int32(FNV1a(key) % uint32(n))
}

// OnNewBatch moves the sticky partition of unkeyed records.
func (p fnv1aPartitioner) OnNewBatch(topic string, n int, prevPartition int32) {
	p.sticky.OnNewBatch(topic, n, prevPartition)
}

// FNV1a is librdkafka's rd_fnv1a: the 32-bit FNV-1a hash of b taken as a
// signed number, its absolute value returned (as Sarama does).
func FNV1a(b []byte) uint32 {
	const (
		offset uint32 = 0x811c9dc5
		prime  uint32 = 0x01000193
	)
	h := offset
	for _, c := range b {
		h ^= uint32(c)
		h *= prime
	}
	if int32(h) < 0 {
		return uint32(-int32(h))
	}
	return h
}
