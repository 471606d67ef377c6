package accumulator

import "encoding/binary"

// murmur2Partitioner is Kafka's default partitioner before 3.3: murmur2 for
// keyed records, a sticky random partition for the others.
type murmur2Partitioner struct {
	rnd    func(n int) int
	sticky map[string]int32 // the current sticky partition per topic
}

// NewMurmur2Partitioner returns Java's default partitioner: a keyed record
// goes to (murmur2(key) & 0x7fffffff) % n; unkeyed records stick to one
// random partition until OnNewBatch moves them to a different random one
// (when n > 1). rnd returns a number in [0, n); nil uses math/rand/v2.
func NewMurmur2Partitioner(rnd func(n int) int) Partitioner {
	return &murmur2Partitioner{rnd: orDefaultRand(rnd), sticky: make(map[string]int32)}
}

// Partition hashes the key, or returns the topic's sticky partition.
func (p *murmur2Partitioner) Partition(topic string, key []byte, n int) int32 {
	if n < 1 {
		return -1
	}
	if key != nil {
		return (Murmur2(key) & 0x7fffffff) % int32(n)
	}
	if cur, ok := p.sticky[topic]; ok && cur < int32(n) {
		return cur
	}
	cur := pick(p.rnd, n)
	p.sticky[topic] = cur
	return cur
}

// StickyForNullKeys is true: records without a key stay on the topic's
// sticky partition until OnNewBatch.
func (p *murmur2Partitioner) StickyForNullKeys() bool { return true }

// OnNewBatch moves the topic's sticky partition to another random one, if
// it is still prevPartition (Kafka's StickyPartitionCache.nextPartition).
func (p *murmur2Partitioner) OnNewBatch(topic string, n int, prevPartition int32) {
	if n < 1 {
		return
	}
	if cur, ok := p.sticky[topic]; ok && cur != prevPartition && cur < int32(n) {
		return
	}
	next := int32(0)
	if n > 1 {
		next = pick(p.rnd, n-1)
		if prevPartition >= 0 && next >= prevPartition {
			next++
		}
		next %= int32(n)
	}
	p.sticky[topic] = next
}

// Murmur2 is Kafka's murmur2 hash (Utils.murmur2): 32-bit MurmurHash2 with
// seed 0x9747b28c, reading little-endian words, as a signed int.
func Murmur2(b []byte) int32 {
	const (
		seed uint32 = 0x9747b28c
		m    uint32 = 0x5bd1e995
		r           = 24
	)
	h := seed ^ uint32(len(b))
	for ; len(b) >= 4; b = b[4:] {
		k := binary.LittleEndian.Uint32(b)
		k *= m
		k ^= k >> r
		k *= m
		h *= m
		h ^= k
	}
	switch len(b) {
	case 3:
		h ^= uint32(b[2]) << 16
		fallthrough
	case 2:
		h ^= uint32(b[1]) << 8
		fallthrough
	case 1:
		h ^= uint32(b[0])
		h *= m
	}
	h ^= h >> 13
	h *= m
	h ^= h >> 15
	return int32(h)
}
