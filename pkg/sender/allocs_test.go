package sender

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/network/networktest"
)

// TestProduceAllocatesNothingPerRecord: handing records over, one by one
// or a batch at a time, allocates less than once a record (the batches'
// own bookkeeping, once per batch, is all there is).
func TestProduceAllocatesNothingPerRecord(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	c := testConfig()
	c.Idempotence = false
	c.Accumulator.Linger = time.Hour
	p, err := newProducer(c, networktest.NewMockSelector(), networktest.NewManualClock(time.Unix(1_700_000_000, 0)))
	require.NoError(t, err)
	t.Cleanup(func() { p.client.Close() })
	p.md.Update(clusterMetadata(1, map[string]int32{"bench": 6}), time.Unix(1_700_000_000, 0))
	ctx := context.Background()
	value := make([]byte, 100)
	promise := func(*Record, error) {}

	recs := make([]Record, 1000)
	for i := range recs {
		recs[i] = Record{Topic: "bench", Value: value}
	}
	i := 0
	one := testing.AllocsPerRun(len(recs)-1, func() {
		p.Produce(ctx, &recs[i], promise)
		i++
	})
	assert.Zero(t, one, "allocations a record of Produce")

	ptrs := make([]*Record, 256)
	for k := range ptrs {
		ptrs[k] = &Record{Topic: "bench", Value: value, Opaque: &recs[k]}
	}
	perCall := testing.AllocsPerRun(20, func() {
		n, err := p.ProduceBatch(ctx, ptrs, promise)
		require.NoError(t, err)
		require.Equal(t, len(ptrs), n)
	})
	assert.Less(t, perCall/float64(len(ptrs)), 0.05, "allocations a record of ProduceBatch (%v a call of %d)", perCall, len(ptrs))
}
