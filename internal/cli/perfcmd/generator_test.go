package perfcmd

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/cli/config"
	"github.com/kproduce/kproduce/pkg/sender"
)

// testOptions are the options of a run of topic t with payload p.
func testOptions(p Payload) *Options {
	return &Options{Producer: &config.Options{Connection: config.Connection{Topic: "t"}, Partition: sender.AnyPartition}, Payload: p}
}

// refsOf returns n fresh record references.
func refsOf(n int) []recordRef {
	h := &handOver{refs: make([]recordRef, n)}
	for i := range h.refs {
		h.refs[i].batch = h
	}
	return h.refs
}

func TestGeneratorRandomValues(t *testing.T) {
	o := testOptions(Payload{Size: 100})
	o.Headers, o.HeaderSize = 2, 7
	g := newGenerator(o)
	refs := refsOf(maxBatch)
	recs := g.fill(refs)
	require.Len(t, recs, maxBatch)
	values := map[string]bool{}
	for i, r := range recs {
		assert.Equal(t, "t", r.Topic)
		assert.Equal(t, sender.AnyPartition, r.Partition)
		assert.Nil(t, r.Key)
		require.Len(t, r.Value, 100)
		for _, b := range r.Value {
			require.True(t, b >= 'A' && b <= '`', "printable: %q", r.Value)
		}
		values[string(r.Value)] = true
		require.Len(t, r.Headers, 2)
		assert.Equal(t, "h0", r.Headers[0].Key)
		assert.Equal(t, "h1", r.Headers[1].Key)
		assert.Len(t, r.Headers[1].Value, 7)
		assert.Same(t, &refs[i], r.Opaque)
		assert.Equal(t, int64(100+2+7+2+7), refs[i].size, "key, value and headers")
	}
	assert.Len(t, values, maxBatch, "a random value each")
}

func TestGeneratorKeys(t *testing.T) {
	o := testOptions(Payload{Size: 1})
	o.KeySize, o.KeyCount = 5, 3
	g := newGenerator(o)
	seen := map[string]int{}
	for range 10 {
		for _, r := range g.fill(refsOf(300)) {
			seen[string(r.Key)]++
		}
	}
	assert.Len(t, seen, 3)
	for k, n := range seen {
		assert.Contains(t, []string{"00000", "00001", "00002"}, k)
		assert.InDelta(t, 1000, n, 150, "key %s chosen uniformly", k)
	}
	o.KeySize, o.KeyCount = 25, 0
	long := newGenerator(o).fill(refsOf(100))
	distinct := map[string]bool{}
	for _, r := range long {
		require.Len(t, r.Key, 25)
		assert.Equal(t, "000000", string(r.Key[:6]), "digits beyond 19 are zeros")
		distinct[string(r.Key)] = true
	}
	assert.Len(t, distinct, 100, "without --key-count, a key each")
}

func TestGeneratorMonotonicAndFile(t *testing.T) {
	g := newGenerator(testOptions(Payload{Monotonic: true}))
	n := 0
	for range 3 {
		for _, r := range g.fill(refsOf(700)) {
			require.Equal(t, strconv.Itoa(n), string(r.Value))
			n++
		}
	}
	entries := [][]byte{[]byte("a"), []byte("bb"), {}}
	g = newGenerator(testOptions(Payload{File: "f", Entries: entries}))
	seen := map[string]int{}
	refs := refsOf(900)
	for i, r := range g.fill(refs) {
		seen[string(r.Value)]++
		assert.Equal(t, int64(len(r.Value)), refs[i].size)
	}
	assert.Len(t, seen, 3)
	for _, c := range seen {
		assert.InDelta(t, 300, c, 75)
	}
}

func TestGeneratorIsSeeded(t *testing.T) {
	o := testOptions(Payload{Size: 20})
	o.KeySize = 4
	a, b := newGenerator(o).fill(refsOf(10)), newGenerator(o).fill(refsOf(10))
	for i := range a {
		assert.Equal(t, a[i].Key, b[i].Key)
		assert.Equal(t, a[i].Value, b[i].Value)
	}
}

// TestGeneratorAllocatesNothing: once its memory is there, making a batch
// allocates nothing, whatever the records have.
func TestGeneratorAllocatesNothing(t *testing.T) {
	for name, o := range benchOptions() {
		t.Run(name, func(t *testing.T) {
			g := newGenerator(o)
			refs := refsOf(maxBatch)
			g.fill(refs)
			assert.Zero(t, testing.AllocsPerRun(20, func() { g.fill(refs) }))
		})
	}
}

// benchOptions are the runs BenchmarkGenerator measures.
func benchOptions() map[string]*Options {
	keyed := testOptions(Payload{Size: 100})
	keyed.KeySize, keyed.KeyCount, keyed.Headers, keyed.HeaderSize = 8, 10000, 2, 16
	return map[string]*Options{
		"record-size-100": testOptions(Payload{Size: 100}),
		"monotonic":       testOptions(Payload{Monotonic: true}),
		"payload-file":    testOptions(Payload{File: "f", Entries: [][]byte{[]byte("x"), []byte("yy")}}),
		"keyed-headers":   keyed,
	}
}

// BenchmarkGenerator measures the making of one record, a batch at a
// time: ns and allocations per record.
func BenchmarkGenerator(b *testing.B) {
	for name, o := range benchOptions() {
		b.Run(name, func(b *testing.B) {
			g := newGenerator(o)
			refs := refsOf(maxBatch)
			b.ReportAllocs()
			b.ResetTimer()
			for done := 0; done < b.N; done += maxBatch {
				g.fill(refs[:min(maxBatch, b.N-done)])
			}
		})
	}
}

func TestGeneratorBatchesOfLargeRecordsAreSmaller(t *testing.T) {
	assert.Equal(t, maxBatch, newGenerator(testOptions(Payload{Size: 100})).batchLimit())
	assert.Equal(t, 16, newGenerator(testOptions(Payload{Size: 64 << 10})).batchLimit())
	g := newGenerator(testOptions(Payload{Size: 2 << 20}))
	require.Equal(t, 1, g.batchLimit(), "at least one")
	recs := g.fill(refsOf(1))
	assert.Len(t, recs[0].Value, 2<<20)
	assert.LessOrEqual(t, cap(g.arena), 2<<20, "the arena holds one batch")
}
