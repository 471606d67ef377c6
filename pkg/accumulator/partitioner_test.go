package accumulator

import (
	"hash/crc32"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"
)

func TestMurmur2Vectors(t *testing.T) {
	// From Kafka's UtilsTest.testMurmur2.
	vectors := map[string]int32{
		"21":                         -973932308,
		"foobar":                     -790332482,
		"a-little-bit-long-string":   -985981536,
		"a-little-bit-longer-string": -1486304829,
		"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8": -58897971,
		"abc": 479470107,
	}
	for in, want := range vectors {
		assert.Equal(t, want, Murmur2([]byte(in)), in)
	}
}

// randomKeys returns n keys of 0 to 64 random bytes (never nil).
func randomKeys(n int) [][]byte {
	rnd := rand.New(rand.NewPCG(7, 11))
	keys := make([][]byte, n)
	for i := range keys {
		keys[i] = make([]byte, rnd.IntN(65))
		for j := range keys[i] {
			keys[i][j] = byte(rnd.Uint32())
		}
	}
	return keys
}

func TestMurmur2PartitionerMatchesKgo(t *testing.T) {
	ours := NewMurmur2Partitioner(nil)
	theirs := kgo.StickyKeyPartitioner(nil).ForTopic("t")
	for _, n := range []int{1, 3, 6, 7, 100} {
		for _, k := range randomKeys(10_000) {
			require.Equal(t, int32(theirs.Partition(&kgo.Record{Key: k}, n)), ours.Partition("t", k, n), "key %x n %d", k, n)
		}
	}
}

func TestCRC32PartitionerMatchesLibrdkafka(t *testing.T) {
	calls := 0
	p := NewCRC32Partitioner(func(n int) int { calls++; return n - 1 })
	for _, n := range []int{1, 3, 6, 7, 100} {
		for _, k := range randomKeys(10_000) {
			if len(k) == 0 {
				continue
			}
			require.Equal(t, int32(crc32.ChecksumIEEE(k)%uint32(n)), p.Partition("t", k, n))
		}
	}
	assert.Zero(t, calls, "keyed records are never random")
	assert.Equal(t, int32(6), p.Partition("t", nil, 7), "null key: random")
	assert.Equal(t, int32(6), p.Partition("t", []byte{}, 7), "empty key: random")
}

// seq returns an rnd that yields vals in turn.
func seq(vals ...int) func(int) int {
	i := 0
	return func(int) int {
		v := vals[i%len(vals)]
		i++
		return v
	}
}

func TestStickyPartitioner(t *testing.T) {
	p := NewMurmur2Partitioner(seq(4, 4, 0, 5))
	for i := 0; i < 3; i++ {
		assert.Equal(t, int32(4), p.Partition("t", nil, 6), "sticks until a new batch")
	}
	p.OnNewBatch("t", 6, 4)
	assert.Equal(t, int32(5), p.Partition("t", nil, 6), "rnd(5)=4 skips the previous partition 4")
	p.OnNewBatch("t", 6, 3)
	assert.Equal(t, int32(5), p.Partition("t", nil, 6), "a stale prevPartition changes nothing")
	p.OnNewBatch("t", 6, 5)
	assert.Equal(t, int32(0), p.Partition("t", nil, 6))
	assert.Equal(t, int32(5), p.Partition("other", nil, 6), "per topic")
	assert.Equal(t, (Murmur2([]byte("k"))&0x7fffffff)%6, p.Partition("t", []byte("k"), 6), "keyed records hash")

	one := NewMurmur2Partitioner(seq(0))
	assert.Equal(t, int32(0), one.Partition("t", nil, 1))
	one.OnNewBatch("t", 1, 0)
	assert.Equal(t, int32(0), one.Partition("t", nil, 1))

	shrunk := NewMurmur2Partitioner(seq(9, 1))
	assert.Equal(t, int32(9), shrunk.Partition("t", nil, 10))
	assert.Equal(t, int32(1), shrunk.Partition("t", nil, 3), "a sticky partition beyond the count is replaced")
}

func TestStickyNeverRepeatsOnNewBatch(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 1))
	p := NewMurmur2Partitioner(rnd.IntN)
	for _, n := range []int{2, 3, 10} {
		prev := p.Partition("t", nil, n)
		for i := 0; i < 1000; i++ {
			p.OnNewBatch("t", n, prev)
			next := p.Partition("t", nil, n)
			require.NotEqual(t, prev, next)
			require.True(t, next >= 0 && next < int32(n))
			prev = next
		}
	}
}

func TestRoundRobinPartitioner(t *testing.T) {
	p := NewRoundRobinPartitioner()
	var got []int32
	for i := 0; i < 7; i++ {
		got = append(got, p.Partition("t", []byte("same key"), 3))
	}
	assert.Equal(t, []int32{0, 1, 2, 0, 1, 2, 0}, got)
	assert.Equal(t, int32(0), p.Partition("other", nil, 3), "per topic")

	// The sticky dance: the refused partition is given again, none skipped.
	dance := NewRoundRobinPartitioner()
	got = nil
	for i := 0; i < 6; i++ {
		part := dance.Partition("t", nil, 3)
		if i%2 == 1 {
			dance.OnNewBatch("t", 3, part)
			part = dance.Partition("t", nil, 3)
		}
		got = append(got, part)
	}
	assert.Equal(t, []int32{0, 1, 2, 0, 1, 2}, got)
}

func TestRandomPartitioner(t *testing.T) {
	p := NewRandomPartitioner(seq(3, 0, 11, -1))
	assert.Equal(t, []int32{3, 0, 1, 4}, []int32{
		p.Partition("t", []byte("k"), 5), p.Partition("t", nil, 5),
		p.Partition("t", nil, 5), p.Partition("t", nil, 5),
	}, "out-of-range rnd values are folded into [0, n)")
	p.OnNewBatch("t", 5, 3)
}

func TestPartitionersRejectNoPartitions(t *testing.T) {
	for _, name := range []string{"murmur2", "round-robin", "random", "crc32"} {
		p, err := ParsePartitioner(name, nil)
		require.NoError(t, err)
		assert.Equal(t, int32(-1), p.Partition("t", nil, 0), name)
		assert.Equal(t, int32(-1), p.Partition("t", []byte("k"), 0), name)
		p.OnNewBatch("t", 0, 0)
		for i := 0; i < 100; i++ {
			got := p.Partition("t", nil, 4)
			require.True(t, got >= 0 && got < 4, name)
		}
	}
}

func TestParsePartitioner(t *testing.T) {
	tests := []struct {
		name string
		want Partitioner
	}{
		{"murmur2", &murmur2Partitioner{}},
		{"MURMUR2", &murmur2Partitioner{}},
		{"round-robin", &roundRobinPartitioner{}},
		{"random", randomPartitioner{}},
		{"crc32", crc32Partitioner{}},
	}
	for _, tt := range tests {
		p, err := ParsePartitioner(tt.name, nil)
		require.NoError(t, err)
		assert.IsType(t, tt.want, p, tt.name)
	}
	_, err := ParsePartitioner("consistent_random", nil)
	assert.ErrorIs(t, err, ErrUnknownPartitioner)
	assert.Contains(t, err.Error(), `"consistent_random"`)
}

// TestFNV1a checks librdkafka's own vectors (rdfnv1a.c's unit test, values
// computed with Go's hash/fnv and Sarama's absolute value).
func TestFNV1a(t *testing.T) {
	for key, want := range map[string]int32{
		"kafka": 0xd33c4e1, "giberish123456789": 0x77a58295, "1234": 0x23bdd03, "234": 0x2dea3cd2,
		"34": 0x740fa83e, "4": 0x310ca263, "PreAmbleWillBeRemoved,ThePrePartThatIs": 0x65cbd69c, "": 0x7ee3623b,
	} {
		assert.Equal(t, want, int32(FNV1a([]byte(key))), key)
	}
}

func TestConsistentAndFNV1aPartitioners(t *testing.T) {
	rnd := func(n int) int { return n - 1 }
	c, err := ParsePartitioner("consistent", rnd)
	require.NoError(t, err)
	assert.EqualValues(t, 0, c.Partition("t", []byte{}, 7), "an empty key hashes to partition 0, as in librdkafka")
	assert.EqualValues(t, crc32.ChecksumIEEE([]byte("k"))%7, c.Partition("t", []byte("k"), 7))
	assert.EqualValues(t, 6, c.Partition("t", nil, 7), "a null key: random")
	crc, err := ParsePartitioner("crc32", rnd)
	require.NoError(t, err)
	assert.EqualValues(t, 6, crc.Partition("t", []byte{}, 7), "crc32 (consistent_random) spreads empty keys")

	f, err := ParsePartitioner("fnv1a", rnd)
	require.NoError(t, err)
	assert.EqualValues(t, 0xd33c4e1%7, f.Partition("t", []byte("kafka"), 7))
	assert.EqualValues(t, 0x7ee3623b%7, f.Partition("t", []byte{}, 7))
	first := f.Partition("t", nil, 7)
	assert.Equal(t, first, f.Partition("t", nil, 7), "null keys stick")
	f.OnNewBatch("t", 7, first)
	assert.NotEqual(t, first, f.Partition("t", nil, 7), "until the batch is full")
}
