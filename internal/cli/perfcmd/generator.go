package perfcmd

import (
	"encoding/binary"
	"math/bits"
	"strconv"

	"github.com/kproduce/kproduce/pkg/sender"
)

// maxBatch is the most records made and handed to the producer together.
const maxBatch = 1024

// maxBatchBytes bounds the keys, values and headers of a batch the
// generator makes (its memory): large records go in smaller batches.
const maxBatchBytes = 1 << 20

// generator makes a run's records a batch at a time, in memory it reuses
// from one batch to the next (the producer copies the records it takes):
// no allocation per record. Its randomness is seeded, as
// kafka-producer-perf-test's is: two runs make the same records.
type generator struct {
	topic     string
	partition int32 // --partition, or sender.AnyPartition
	payload   Payload
	keySize   int
	// keySpace is the number of distinct keys: --key-count, or every
	// number of keySize digits.
	keySpace   uint64
	headers    int
	headerSize int
	headerKeys []string
	// headerBytes is the size of one record's headers, keys and values.
	headerBytes int
	rnd         uint64 // the state of the random numbers (see random)
	next        int64  // the number of the next record (--payload-monotonic)

	recs  []sender.Record
	ptrs  []*sender.Record
	hdrs  []sender.Header
	arena []byte // the bytes of one batch's keys and values
}

// newGenerator returns the generator of o's records.
func newGenerator(o *Options) *generator {
	g := &generator{
		topic: o.Producer.Topic, partition: o.Producer.Partition, payload: o.Payload, keySize: o.KeySize, keySpace: o.KeyCount,
		headers: o.Headers, headerSize: o.HeaderSize, rnd: 0x6b70726f64756365,
		recs: make([]sender.Record, maxBatch), ptrs: make([]*sender.Record, maxBatch),
		hdrs: make([]sender.Header, maxBatch*o.Headers),
	}
	if g.keySpace == 0 && g.keySize > 0 {
		g.keySpace = pow10(min(g.keySize, maxKeyDigits))
	}
	for i := range o.Headers {
		g.headerKeys = append(g.headerKeys, "h"+strconv.Itoa(i))
		g.headerBytes += len(g.headerKeys[i]) + o.HeaderSize
	}
	for i := range g.ptrs {
		g.ptrs[i] = &g.recs[i]
	}
	return g
}

// recordBytes is the most bytes of keys, values and headers one record
// takes in the arena.
func (g *generator) recordBytes() int {
	value := g.payload.Size
	if g.payload.Monotonic {
		value = 20
	}
	return g.keySize + value + g.headers*g.headerSize
}

// batchLimit is the most records of a batch: maxBatch, fewer when they
// are large, at least one.
func (g *generator) batchLimit() int {
	return max(1, min(maxBatch, maxBatchBytes/max(1, g.recordBytes())))
}

// fill makes the next len(refs) records (at most batchLimit), each with its
// ref as Opaque and its size (key, value and headers) set in it, and
// returns them. They are valid until the next fill.
func (g *generator) fill(refs []recordRef) []*sender.Record {
	n := len(refs)
	if need := n * g.recordBytes(); cap(g.arena) < need {
		g.arena = make([]byte, 0, need)
	}
	arena := g.arena[:0]
	for i := range n {
		r := &g.recs[i]
		r.Topic, r.Partition, r.Offset = g.topic, g.partition, 0
		r.Key, arena = g.key(arena)
		r.Value, arena = g.value(arena)
		r.Headers, arena = g.header(i, arena)
		refs[i].size, refs[i].own = int64(len(r.Key)+len(r.Value)+g.headerBytes), r
		r.Opaque = &refs[i]
		g.next++
	}
	g.arena = arena
	return g.ptrs[:n]
}

// key appends the next record's key to arena: nil without --key-size;
// otherwise a number below the key space, chosen uniformly, as keySize
// digits (padded with zeros).
func (g *generator) key(arena []byte) ([]byte, []byte) {
	if g.keySize == 0 {
		return nil, arena
	}
	n, _ := bits.Mul64(g.random(), g.keySpace) // uniform in [0, keySpace)
	start := len(arena)
	arena = arena[:start+g.keySize]
	k := arena[start:]
	for i := len(k) - 1; i >= 0; i-- {
		k[i] = byte('0' + n%10)
		n /= 10
	}
	return k, arena
}

// value appends the next record's value to arena, or picks it from the
// payload file's entries.
func (g *generator) value(arena []byte) ([]byte, []byte) {
	switch {
	case g.payload.Entries != nil:
		n, _ := bits.Mul64(g.random(), uint64(len(g.payload.Entries)))
		return g.payload.Entries[n], arena
	case g.payload.Monotonic:
		start := len(arena)
		arena = strconv.AppendInt(arena, g.next, 10)
		return arena[start:len(arena):len(arena)], arena
	}
	start := len(arena)
	arena = arena[:start+g.payload.Size]
	g.printable(arena[start:])
	return arena[start:], arena
}

// header sets the headers of record i of the batch, their values
// appended to arena; nil without --headers.
func (g *generator) header(i int, arena []byte) ([]sender.Header, []byte) {
	if g.headers == 0 {
		return nil, arena
	}
	hs := g.hdrs[i*g.headers : (i+1)*g.headers]
	for j := range hs {
		start := len(arena)
		arena = arena[:start+g.headerSize]
		g.printable(arena[start:])
		hs[j] = sender.Header{Key: g.headerKeys[j], Value: arena[start:]}
	}
	return hs, arena
}

// random returns a random number: wyrand (one multiplication a number,
// several times faster than math/rand/v2's generators, and as uniform as
// making payloads needs).
func (g *generator) random() uint64 {
	g.rnd += 0xa0761d6478bd642f
	hi, lo := bits.Mul64(g.rnd, g.rnd^0xe7037ed1a0b428db)
	return hi ^ lo
}

// printable fills b with random printable characters, 32 of them ('A' to
// '`'), eight bytes a random number: about the entropy of
// kafka-producer-perf-test's A to Z, at a fraction of the cost.
func (g *generator) printable(b []byte) {
	const mask, base = 0x1f1f1f1f1f1f1f1f, 0x4141414141414141
	for len(b) >= 8 {
		binary.LittleEndian.PutUint64(b, g.random()&mask+base)
		b = b[8:]
	}
	if len(b) > 0 {
		var last [8]byte
		binary.LittleEndian.PutUint64(last[:], g.random()&mask+base)
		copy(b, last[:])
	}
}
