package sender

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/accumulator"
	"github.com/kproduce/kproduce/pkg/network"
	"github.com/kproduce/kproduce/pkg/network/networktest"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// newDryProducer returns a DryRun producer over n partitions per topic
// with the named partitioner (its random choices seeded), behind a
// ManualPartitioner, and opts.
func newDryProducer(t *testing.T, n int, partitioner string, opts ...Opt) *Producer {
	t.Helper()
	part, err := NewPartitioner(partitioner, rand.New(rand.NewPCG(7, 11)).IntN)
	require.NoError(t, err)
	p, err := New(append([]Opt{DryRun(n), WithPartitioner(ManualPartitioner(part))}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close(context.Background()) })
	return p
}

// dryPlace places one record with ProduceBatch and returns its partition,
// or the error it was refused with.
func dryPlace(t *testing.T, p *Producer, r Record) (int32, error) {
	t.Helper()
	var part int32 = -2
	var perr error
	calls := 0
	recs := []Record{r}
	n, err := p.ProduceBatch(context.Background(), ptrsOf(recs), func(got *Record, err error) {
		calls++
		part, perr = got.Partition, err
		assert.Equal(t, int64(-1), got.Offset, "a dry run gives no offset")
	})
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.Equal(t, 1, calls, "one promise, before ProduceBatch returned")
	return part, perr
}

// placeAll places n unkeyed records of valueSize bytes and returns their
// partitions.
func placeAll(t *testing.T, p *Producer, topic string, n, valueSize int) []int32 {
	t.Helper()
	parts := make([]int32, n)
	for i := range parts {
		part, err := dryPlace(t, p, Record{Topic: topic, Partition: AnyPartition, Value: make([]byte, valueSize),
			Timestamp: time.UnixMilli(1700000000000)})
		require.NoError(t, err, "record %d", i)
		parts[i] = part
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

// TestDryRunStickySwitches checks that unkeyed records stick to one
// partition until its batch would be full. A 100-byte value with a null
// key and no headers encodes to 109 bytes (see TestBatchFillStickyCount);
// a batch holds the 61-byte header and floor((B-61)/109) records.
func TestDryRunStickySwitches(t *testing.T) {
	for _, tc := range []struct {
		n, batchSize int
		want         []int
	}{
		{n: 20, batchSize: 1000, want: []int{8, 8, 4}},
		{n: 20, batchSize: 61 + 2*109, want: []int{2, 2, 2, 2, 2, 2, 2, 2, 2, 2}},
		{n: 5, batchSize: 1 << 20, want: []int{5}},
	} {
		t.Run(fmt.Sprintf("%d-in-%d", tc.n, tc.batchSize), func(t *testing.T) {
			p := newDryProducer(t, 6, PartitionerMurmur2, BatchSize(tc.batchSize))
			assert.Equal(t, tc.want, runLengths(placeAll(t, p, "t", tc.n, 100)))
		})
	}
}

// TestDryRunStickyPerTopic checks that each topic has its own sticky
// partition and its own batches.
func TestDryRunStickyPerTopic(t *testing.T) {
	p := newDryProducer(t, 4, PartitionerMurmur2, BatchSize(1000))
	var a, b []int32
	for range 16 {
		a = append(a, placeAll(t, p, "a", 1, 100)...)
		b = append(b, placeAll(t, p, "b", 1, 100)...)
	}
	assert.Equal(t, []int{8, 8}, runLengths(a))
	assert.Equal(t, []int{8, 8}, runLengths(b))
}

// TestDryRunMatchesPartitioners checks the choices that do not depend on
// batches: explicit partitions, murmur2 keys (Java's formula) and
// round-robin (which gives every partition in turn, keyed or not).
func TestDryRunMatchesPartitioners(t *testing.T) {
	keys := [][]byte{[]byte("21"), []byte("foobar"), []byte("abc"), []byte("a-little-bit-long-string"), {}}
	t.Run("murmur2", func(t *testing.T) {
		p := newDryProducer(t, 7, PartitionerMurmur2)
		for _, k := range keys {
			part, err := dryPlace(t, p, Record{Topic: "t", Partition: AnyPartition, Key: k, Value: []byte("v")})
			require.NoError(t, err)
			assert.Equal(t, (accumulator.Murmur2(k)&0x7fffffff)%7, part, "key %q", k)
		}
		// "21" hashes to -973932308 (Kafka's test vector): & 0x7fffffff = 1173551340, % 7 = 3.
		part, _ := dryPlace(t, p, Record{Topic: "t", Partition: AnyPartition, Key: []byte("21")})
		assert.Equal(t, int32(3), part)
	})
	t.Run("explicit", func(t *testing.T) {
		p := newDryProducer(t, 7, PartitionerMurmur2)
		part, err := dryPlace(t, p, Record{Topic: "t", Partition: 6, Key: []byte("21")})
		require.NoError(t, err)
		assert.Equal(t, int32(6), part)
		part, err = dryPlace(t, p, Record{Topic: "t", Partition: 7})
		require.ErrorIs(t, err, ErrUnknownPartition)
		assert.Contains(t, err.Error(), "partition 7 of topic t, which has 7 partitions")
		assert.Equal(t, int32(7), part, "a refused record keeps the partition it named")
	})
	t.Run("round-robin", func(t *testing.T) {
		p := newDryProducer(t, 3, PartitionerRoundRobin)
		var got []int32
		for i := range 7 {
			var key []byte
			if i%2 == 0 {
				key = []byte("k")
			}
			part, err := dryPlace(t, p, Record{Topic: "t", Partition: AnyPartition, Key: key, Value: []byte("v")})
			require.NoError(t, err)
			got = append(got, part)
		}
		assert.Equal(t, []int32{0, 1, 2, 0, 1, 2, 0}, got)
	})
	t.Run("partition ignored without ManualPartitioner", func(t *testing.T) {
		p, err := New(DryRun(3), WithPartitioner(must(NewPartitioner(PartitionerRoundRobin, nil))))
		require.NoError(t, err)
		var got []int32
		for range 3 {
			part, err := dryPlace(t, p, Record{Topic: "t", Partition: 2})
			require.NoError(t, err)
			got = append(got, part)
		}
		assert.Equal(t, []int32{0, 1, 2}, got)
	})
}

// TestDryRunTooLarge checks that a record whose batch alone exceeds the
// maximum request size fails as the producer's Append fails it.
func TestDryRunTooLarge(t *testing.T) {
	p := newDryProducer(t, 2, PartitionerMurmur2, MaxRequestSize(200))
	_, err := dryPlace(t, p, Record{Topic: "t", Partition: AnyPartition, Value: make([]byte, 200)})
	require.ErrorIs(t, err, ErrRecordTooLarge)
	part, err := dryPlace(t, p, Record{Topic: "t", Partition: 1, Value: make([]byte, 100),
		Headers: []protocol.Header{{Key: "h", Value: []byte("v")}}})
	require.NoError(t, err)
	assert.Equal(t, int32(1), part)
}

// TestDryRunStampsAndCloses: a record without a timestamp gets the time
// it was placed; PartitionsFor gives the fixed count; after Close records
// are not taken.
func TestDryRunStampsAndCloses(t *testing.T) {
	p := newDryProducer(t, 3, PartitionerMurmur2)
	before := time.Now()
	recs := []Record{{Topic: "t", Partition: AnyPartition}, {Topic: "t", Partition: AnyPartition, Timestamp: time.UnixMilli(42)}}
	var stamps []time.Time
	_, err := p.ProduceBatch(context.Background(), ptrsOf(recs), func(r *Record, err error) {
		require.NoError(t, err)
		stamps = append(stamps, r.Timestamp)
	})
	require.NoError(t, err)
	require.Len(t, stamps, 2)
	assert.False(t, stamps[0].Before(before))
	assert.Equal(t, time.UnixMilli(42), stamps[1])
	parts, err := p.PartitionsFor(context.Background(), "any")
	require.NoError(t, err)
	assert.Len(t, parts, 3)
	require.NoError(t, p.Close(context.Background()))
	n, err := p.ProduceBatch(context.Background(), ptrsOf(recs), nil)
	assert.ErrorIs(t, err, ErrClosed)
	assert.Zero(t, n)
}

// TestDryRunAgainstCluster: without a partition count the producer asks
// the cluster, never creating a topic, and a topic it does not have fails
// its records at once.
func TestDryRunAgainstCluster(t *testing.T) {
	sel := networktest.NewMockSelector()
	sel.AutoReady(nil)
	var mu sync.Mutex
	var asked []bool
	sel.AutoRespond(protocol.KeyMetadata, func(req networktest.SentRequest) protocol.Response {
		body := req.Body.(*protocol.MetadataRequest)
		mu.Lock()
		asked = append(asked, body.AllowAutoTopicCreation)
		mu.Unlock()
		resp := clusterMetadata(1, map[string]int32{"two": 2})
		for _, t := range body.Topics {
			if *t.Name != "two" { // as a broker answers for a topic it does not have
				resp.Topics = append(resp.Topics, protocol.MetadataResponseTopic{Name: t.Name, ErrorCode: protocol.ErrUnknownTopicOrPartition.Code})
			}
		}
		return resp
	})
	cfg := testConfig()
	DryRun(0)(&cfg)
	p, err := newProducer(cfg, sel, network.SystemClock{})
	require.NoError(t, err)
	go p.sender.run()
	t.Cleanup(func() { _ = p.Close(context.Background()) })
	part, err := dryPlace(t, p, Record{Topic: "two", Partition: 1, Value: []byte("v")})
	require.NoError(t, err)
	assert.Equal(t, int32(1), part)
	_, err = dryPlace(t, p, Record{Topic: "gone", Partition: AnyPartition})
	require.ErrorIs(t, err, ErrTopicMetadata)
	require.ErrorIs(t, err, protocol.ErrUnknownTopicOrPartition)
	mu.Lock()
	assert.NotContains(t, asked, true, "a dry run never asks for a topic to be created")
	mu.Unlock()
	assert.Empty(t, sel.SentKey(1, protocol.KeyProduce), "nothing is produced")
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
