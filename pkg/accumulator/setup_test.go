package accumulator

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// t0 is the tests' epoch; every test passes time explicitly.
var t0 = time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)

// testCluster is a static metadata snapshot.
type testCluster struct {
	leaders map[TopicPartition]int32
	counts  map[string]int
}

// newTestCluster spreads the partitions of each topic over nodes in turn:
// partition p of a topic is led by nodes[p % len(nodes)].
func newTestCluster(partitions map[string]int, nodes ...int32) *testCluster {
	c := &testCluster{leaders: map[TopicPartition]int32{}, counts: map[string]int{}}
	for topic, n := range partitions {
		c.counts[topic] = n
		for p := 0; p < n; p++ {
			c.leaders[TopicPartition{topic, int32(p)}] = nodes[p%len(nodes)]
		}
	}
	return c
}

func (c *testCluster) LeaderFor(topic string, partition int32) (int32, bool) {
	n, ok := c.leaders[TopicPartition{topic, partition}]
	return n, ok
}

func (c *testCluster) PartitionCount(topic string) int { return c.counts[topic] }

// recorded is a copy of a Result, safe to keep after the callback.
type recorded struct {
	TopicPartition
	Offset    int64
	Timestamp int64
	Key       []byte
	Value     []byte
	Headers   []protocol.Header
	Position  Position
	Err       error
	// CreateTime and BatchCreatedAt are the Result's.
	CreateTime     int64
	BatchCreatedAt time.Time
}

// recorder collects every callback.
type recorder struct {
	mu      sync.Mutex
	results []recorded
}

func (r *recorder) callback(res *Result) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var hdrs []protocol.Header
	for _, h := range res.Headers {
		hdrs = append(hdrs, protocol.Header{Key: h.Key, Value: slices.Clone(h.Value)})
	}
	r.results = append(r.results, recorded{res.TopicPartition, res.Offset, res.Timestamp,
		slices.Clone(res.Key), slices.Clone(res.Value), hdrs, positionOf(res.Ref), res.Err, res.CreateTime, res.BatchCreatedAt})
}

func (r *recorder) all() []recorded {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.results)
}

// testConfig is a small deterministic configuration.
func testConfig() Config {
	return Config{
		BatchSize:       1 << 10,
		Linger:          10 * time.Millisecond,
		RetryBackoff:    100 * time.Millisecond,
		RetryBackoffMax: time.Second,
		DeliveryTimeout: time.Minute,
		BufferMemory:    1 << 20,
		ResultRecords:   true,
		Jitter:          func() float64 { return 1 },
	}
}

func newTestAccumulator(t *testing.T, cfg Config) (*Accumulator, *recorder) {
	t.Helper()
	rec := &recorder{}
	a := New(cfg, rec.callback)
	t.Cleanup(func() { a.AbortIncompleteBatches(context.Canceled) })
	return a, rec
}

// appendN appends n records of valueSize bytes to tp with positions
// (0, first..first+n-1), timestamps ts0+i, and returns the results.
func appendN(t *testing.T, a *Accumulator, tp TopicPartition, first, n, valueSize int, now time.Time) []AppendResult {
	t.Helper()
	out := make([]AppendResult, 0, n)
	for i := first; i < first+n; i++ {
		res, err := a.Append(context.Background(), tp, Record{Timestamp: now.UnixMilli() + int64(i), Key: nil, Value: value(i, valueSize), Headers: nil, Ref: Position{Record: int64(i)}}, nil, false, now)
		require.NoError(t, err)
		out = append(out, res)
	}
	return out
}

// value is record i's deterministic value.
func value(i, size int) []byte {
	v := make([]byte, size)
	for j := range v {
		v[j] = byte('a' + (i+j)%26)
	}
	return v
}

// drainAll drains every ready batch of every node, with no size limit.
func drainAll(a *Accumulator, c *testCluster, now time.Time) []*Batch {
	nodes := map[int32]struct{}{}
	for _, n := range c.leaders {
		nodes[n] = struct{}{}
	}
	var out []*Batch
	for _, bs := range a.Drain(c, nodes, 1<<30, now, nil) {
		out = append(out, bs...)
	}
	slices.SortFunc(out, func(x, y *Batch) int { return int(x.id) - int(y.id) })
	return out
}

// complete closes, completes and deallocates batches with consecutive
// offsets from base.
func complete(t *testing.T, a *Accumulator, batches []*Batch, base int64) {
	t.Helper()
	for _, b := range batches {
		require.NoError(t, b.Close(protocol.NewCompressor()))
		require.True(t, b.Done(base, -1, nil))
		base += int64(b.RecordCount())
		a.Deallocate(b)
	}
}

// completeDrained closes, completes (delivered) and deallocates every
// batch Drain returned, as a sender whose broker keeps up would.
func completeDrained(a *Accumulator, drained map[int32][]*Batch, comp *protocol.Compressor) error {
	for _, bs := range drained {
		for _, b := range bs {
			if err := b.Close(comp); err != nil {
				return err
			}
			b.Done(0, -1, nil)
			a.Deallocate(b)
		}
	}
	return nil
}

// Position is what the tests give as each record's Ref: where it came from.
type Position struct {
	Source int32
	Record int64
}

// positionOf is the Position a test gave as ref, or the zero Position.
func positionOf(ref any) Position {
	p, _ := ref.(Position)
	return p
}
