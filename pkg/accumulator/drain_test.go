package accumulator

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fillBatches appends to tp enough 100-byte records for `full` full batches
// (with the 1 KiB batches of testConfig) plus one more record, so that the
// deque holds full+1 batches and every drained batch has the same size.
func fillBatches(t *testing.T, a *Accumulator, tp TopicPartition, full int, now time.Time) {
	t.Helper()
	per := recordsPerBatch(a.cfg.BatchSize, 100)
	appendN(t, a, tp, 0, per*full+1, 100, now)
}

func partitions(batches []*Batch) []int32 {
	var out []int32
	for _, b := range batches {
		out = append(out, b.TopicPartition().Partition)
	}
	return out
}

func TestDrainRespectsMaxRequestSize(t *testing.T) {
	tests := []struct {
		name      string
		maxSize   func(batch int) int
		wantSizes []int // batches per successive Drain
	}{
		{"two fit", func(s int) int { return 2 * s }, []int{2, 1}},
		{"all fit", func(s int) int { return 3 * s }, []int{3}},
		{"just under two", func(s int) int { return 2*s - 1 }, []int{1, 1, 1}},
		{"first always taken", func(s int) int { return s / 2 }, []int{1, 1, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, _ := newTestAccumulator(t, testConfig())
			c := newTestCluster(map[string]int{"t": 3}, 1)
			per := recordsPerBatch(a.cfg.BatchSize, 100)
			for p := int32(0); p < 3; p++ {
				appendN(t, a, TopicPartition{"t", p}, 0, per, 100, t0) // one batch each, same size
			}
			size := 0
			a.mu.Lock()
			size = len(a.deques[TopicPartition{"t", 0}].first().buf)
			a.mu.Unlock()
			nodes := map[int32]struct{}{1: {}}
			var got []int
			for i := 0; i < len(tt.wantSizes)+1; i++ {
				drained := a.Drain(c, nodes, tt.maxSize(size), t0, nil)
				if len(drained) == 0 {
					break
				}
				total := 0
				for _, b := range drained[1] {
					assert.Equal(t, per, b.RecordCount())
					total += b.EncodedSize()
				}
				assert.True(t, total <= tt.maxSize(size) || len(drained[1]) == 1)
				got = append(got, len(drained[1]))
			}
			assert.Equal(t, tt.wantSizes, got)
		})
	}
}

func TestDrainRotatesPartitions(t *testing.T) {
	tests := []struct {
		name    string
		maxSize int
		want    [][]int32 // partitions per successive Drain of node 1
	}{
		{"all fit: start moves by one", 1 << 20, [][]int32{{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 1, 2}}},
		{"one fits: the cut-off partition starts", 1, [][]int32{{0}, {1}, {2}, {0}, {1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, _ := newTestAccumulator(t, testConfig())
			c := newTestCluster(map[string]int{"t": 3}, 1)
			for p := int32(0); p < 3; p++ {
				fillBatches(t, a, TopicPartition{"t", p}, 5, t0)
			}
			for i, want := range tt.want {
				got := a.Drain(c, map[int32]struct{}{1: {}}, tt.maxSize, t0, nil)
				assert.Equal(t, want, partitions(got[1]), "drain %d", i)
			}
		})
	}
}

func TestDrainPerNode(t *testing.T) {
	a, _ := newTestAccumulator(t, testConfig())
	c := newTestCluster(map[string]int{"t": 4}, 1, 2) // node 1: 0, 2; node 2: 1, 3
	for p := int32(0); p < 4; p++ {
		appendN(t, a, TopicPartition{"t", p}, 0, 1, 10, t0)
	}
	got := a.Drain(c, map[int32]struct{}{2: {}}, 1<<20, t0, nil)
	assert.Equal(t, []int32{1, 3}, partitions(got[2]))
	assert.NotContains(t, got, int32(1), "node 1 was not asked for")
	got = a.Drain(c, map[int32]struct{}{1: {}, 2: {}}, 1<<20, t0, nil)
	assert.Equal(t, []int32{0, 2}, partitions(got[1]))
	assert.NotContains(t, got, int32(2), "nothing left for node 2")
	assert.Nil(t, a.Drain(c, nil, 1<<20, t0, nil))
}

func TestDrainTakeVeto(t *testing.T) {
	a, _ := newTestAccumulator(t, testConfig())
	c := newTestCluster(map[string]int{"t": 3}, 1)
	for p := int32(0); p < 3; p++ {
		fillBatches(t, a, TopicPartition{"t", p}, 1, t0)
	}
	var offered []int32
	seq := int32(0)
	take := func(b *Batch) bool {
		offered = append(offered, b.TopicPartition().Partition)
		if b.TopicPartition().Partition == 1 {
			return false
		}
		b.SetProducerState(9, 2, seq)
		seq += int32(b.RecordCount())
		return true
	}
	got := a.Drain(c, map[int32]struct{}{1: {}}, 1<<20, t0, take)[1]
	assert.Equal(t, []int32{0, 1, 2}, offered, "each head is offered once")
	require.Equal(t, []int32{0, 2}, partitions(got))
	per := int32(recordsPerBatch(a.cfg.BatchSize, 100))
	for i, b := range got {
		assert.True(t, b.HasSequence())
		assert.Equal(t, int64(9), b.ProducerID())
		assert.Equal(t, int16(2), b.ProducerEpoch())
		assert.Equal(t, int32(i)*per, b.BaseSequence())
		assert.Equal(t, t0, b.DrainedAt())
	}
	got = a.Drain(c, map[int32]struct{}{1: {}}, 1<<20, t0, nil)[1]
	assert.Contains(t, partitions(got), int32(1), "the vetoed partition is drained later")
	for _, b := range got {
		if b.TopicPartition().Partition == 1 {
			assert.False(t, b.HasSequence())
		}
	}
}

func TestDrainSkipsMutedPartitions(t *testing.T) {
	a, _ := newTestAccumulator(t, testConfig())
	c := newTestCluster(map[string]int{"t": 2}, 1)
	fillBatches(t, a, TopicPartition{"t", 0}, 1, t0)
	fillBatches(t, a, TopicPartition{"t", 1}, 1, t0)
	a.MutePartition(TopicPartition{"t", 0})
	got := a.Drain(c, map[int32]struct{}{1: {}}, 1<<20, t0, nil)[1]
	assert.Equal(t, []int32{1}, partitions(got))
	// Partition 1 still has a batch (ready: full deque before); mute it too.
	a.MutePartition(TopicPartition{"t", 1})
	assert.Empty(t, a.Ready(c, t0.Add(time.Hour)).ReadyNodes)
	a.UnmutePartition(TopicPartition{"t", 0})
	assert.Equal(t, map[int32]struct{}{1: {}}, a.Ready(c, t0).ReadyNodes)
	got = a.Drain(c, map[int32]struct{}{1: {}}, 1<<20, t0, nil)[1]
	assert.Equal(t, []int32{0}, partitions(got))
}

func TestDrainedBatchIsClosedForAppends(t *testing.T) {
	a, _ := newTestAccumulator(t, testConfig())
	c := newTestCluster(map[string]int{"t": 1}, 1)
	tp := TopicPartition{"t", 0}
	appendN(t, a, tp, 0, 2, 10, t0)
	got := drainAll(a, c, t0)
	require.Len(t, got, 1)
	res := appendN(t, a, tp, 2, 1, 10, t0)[0]
	assert.True(t, res.NewBatchCreated)
	assert.Equal(t, 2, got[0].RecordCount())
}
