package sender

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/accumulator"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// newTestRouter returns a router over n partitions per topic with the
// named partitioner (its random choices seeded) and the producer's
// defaults, changed by mod when not nil.
func newTestRouter(t *testing.T, n int, partitioner string, mod func(*Config)) *Router {
	t.Helper()
	cfg := DefaultConfig()
	part, err := accumulator.ParsePartitioner(partitioner, rand.New(rand.NewPCG(7, 11)).IntN)
	require.NoError(t, err)
	cfg.Partitioner = part
	if mod != nil {
		mod(&cfg)
	}
	d, err := NewRouter(cfg, FixedPartitions(n))
	require.NoError(t, err)
	return d
}

// routeAll routes n unkeyed records of valueSize bytes (one timestamp) and
// returns their partitions.
func routeAll(t *testing.T, d *Router, topic string, n, valueSize int) []int32 {
	t.Helper()
	value := make([]byte, valueSize)
	parts := make([]int32, n)
	for i := range parts {
		p, err := d.Route(context.Background(), topic, -1, 1700000000000, nil, value, nil)
		require.NoError(t, err, "record %d", i)
		parts[i] = p
	}
	return parts
}

// runLengths returns the lengths of the runs of equal partitions.
func runLengths(parts []int32) []int {
	var runs []int
	for i, p := range parts {
		if i == 0 || p != parts[i-1] {
			runs = append(runs, 0)
		}
		runs[len(runs)-1]++
	}
	return runs
}

// TestDryRouterStickySwitches checks that unkeyed records stick to one
// partition until its batch would be full. A 100-byte value with a null
// key and no headers encodes to 109 bytes (see TestBatchFillStickyCount);
// a batch holds the 61-byte header and floor((B-61)/109) records.
func TestDryRouterStickySwitches(t *testing.T) {
	for _, tc := range []struct {
		n, batchSize int
		want         []int
	}{
		{n: 20, batchSize: 1000, want: []int{8, 8, 4}},
		{n: 20, batchSize: 61 + 2*109, want: []int{2, 2, 2, 2, 2, 2, 2, 2, 2, 2}},
		{n: 5, batchSize: 1 << 20, want: []int{5}},
	} {
		t.Run(fmt.Sprintf("%d-in-%d", tc.n, tc.batchSize), func(t *testing.T) {
			d := newTestRouter(t, 6, "murmur2", func(c *Config) { c.Accumulator.BatchSize = tc.batchSize })
			assert.Equal(t, tc.want, runLengths(routeAll(t, d, "t", tc.n, 100)))
		})
	}
}

// TestDryRouterStickyPerTopic checks that each topic has its own sticky
// partition and its own batches.
func TestDryRouterStickyPerTopic(t *testing.T) {
	d := newTestRouter(t, 4, "murmur2", func(c *Config) { c.Accumulator.BatchSize = 1000 })
	var a, b []int32
	for range 16 {
		a = append(a, routeAll(t, d, "a", 1, 100)...)
		b = append(b, routeAll(t, d, "b", 1, 100)...)
	}
	assert.Equal(t, []int{8, 8}, runLengths(a))
	assert.Equal(t, []int{8, 8}, runLengths(b))
}

// TestDryRouterMatchesPartitioners checks the choices that do not depend
// on batches: explicit partitions, murmur2 keys (Java's formula), crc32
// keys and round-robin (which gives every partition in turn, keyed or not).
func TestDryRouterMatchesPartitioners(t *testing.T) {
	keys := [][]byte{[]byte("21"), []byte("foobar"), []byte("abc"), []byte("a-little-bit-long-string"), {}}
	t.Run("murmur2", func(t *testing.T) {
		d := newTestRouter(t, 7, "murmur2", nil)
		for _, k := range keys {
			p, err := d.Route(context.Background(), "t", -1, 1, k, []byte("v"), nil)
			require.NoError(t, err)
			assert.Equal(t, (accumulator.Murmur2(k)&0x7fffffff)%7, p, "key %q", k)
		}
		// "21" hashes to -973932308 (Kafka's test vector): & 0x7fffffff = 1173551340, % 7 = 3.
		p, _ := d.Route(context.Background(), "t", -1, 1, []byte("21"), nil, nil)
		assert.Equal(t, int32(3), p)
	})
	t.Run("explicit", func(t *testing.T) {
		d := newTestRouter(t, 7, "murmur2", nil)
		p, err := d.Route(context.Background(), "t", 6, 1, []byte("21"), nil, nil)
		require.NoError(t, err)
		assert.Equal(t, int32(6), p)
		_, err = d.Route(context.Background(), "t", 7, 1, nil, nil, nil)
		require.ErrorIs(t, err, ErrUnknownPartition)
		assert.Contains(t, err.Error(), "partition 7 of topic t, which has 7 partitions")
	})
	t.Run("round-robin", func(t *testing.T) {
		d := newTestRouter(t, 3, "round-robin", nil)
		var got []int32
		for i := range 7 {
			var key []byte
			if i%2 == 0 {
				key = []byte("k")
			}
			p, err := d.Route(context.Background(), "t", -1, 1, key, []byte("v"), nil)
			require.NoError(t, err)
			got = append(got, p)
		}
		assert.Equal(t, []int32{0, 1, 2, 0, 1, 2, 0}, got)
	})
}

// TestDryRouterTooLarge checks that a record whose batch alone exceeds
// --max-request-size fails as the producer's Append fails it.
func TestDryRouterTooLarge(t *testing.T) {
	d := newTestRouter(t, 2, "murmur2", func(c *Config) { c.MaxRequestSize = 200 })
	_, err := d.Route(context.Background(), "t", -1, 1, nil, make([]byte, 200), nil)
	require.ErrorIs(t, err, ErrRecordTooLarge)
	p, err := d.Route(context.Background(), "t", 1, 1, nil, make([]byte, 100), []protocol.Header{{Key: "h", Value: []byte("v")}})
	require.NoError(t, err)
	assert.Equal(t, int32(1), p)
}

// fakeMetadata answers Metadata with fixed partition counts, counting the
// requests; a topic missing from counts is UNKNOWN_TOPIC_OR_PARTITION.
type fakeMetadata struct {
	counts map[string]int
	asked  []string
	err    error
}

func (f *fakeMetadata) fetch(_ context.Context, topics []string) (*protocol.MetadataResponse, error) {
	f.asked = append(f.asked, topics...)
	if f.err != nil {
		return nil, f.err
	}
	resp := &protocol.MetadataResponse{}
	for _, name := range topics {
		t := protocol.MetadataResponseTopic{Name: &name}
		n, ok := f.counts[name]
		if !ok {
			t.ErrorCode = protocol.ErrUnknownTopicOrPartition.Code
		}
		for p := range n {
			t.Partitions = append(t.Partitions, protocol.MetadataResponsePartition{PartitionIndex: int32(p)})
		}
		resp.Topics = append(resp.Topics, t)
	}
	return resp, nil
}

// TestClusterPartitionsAsksOncePerTopic checks the per-topic cache, the
// unknown topic's error and the fatal error of a failed request.
func TestClusterPartitionsAsksOncePerTopic(t *testing.T) {
	f := &fakeMetadata{counts: map[string]int{"a": 2, "b": 5}}
	c := NewMetadataPartitions(f.fetch, 0)
	for range 3 {
		for topic, want := range map[string]int{"a": 2, "b": 5} {
			n, err := c.PartitionCount(context.Background(), topic)
			require.NoError(t, err)
			assert.Equal(t, want, n)
		}
		_, err := c.PartitionCount(context.Background(), "nope")
		require.ErrorIs(t, err, ErrTopicMetadata)
		require.ErrorIs(t, err, protocol.ErrUnknownTopicOrPartition)
		assert.Contains(t, err.Error(), "nope")
	}
	assert.ElementsMatch(t, []string{"a", "b", "nope"}, f.asked)
	require.NoError(t, c.Fatal())

	down := errors.New("no broker answered")
	f = &fakeMetadata{err: down}
	c = NewMetadataPartitions(f.fetch, 0)
	_, err := c.PartitionCount(context.Background(), "a")
	require.ErrorIs(t, err, down)
	_, err = c.PartitionCount(context.Background(), "b")
	require.ErrorIs(t, err, down)
	assert.Equal(t, []string{"a"}, f.asked, "no more requests after a failed one")
	require.ErrorIs(t, c.Fatal(), down)
}
