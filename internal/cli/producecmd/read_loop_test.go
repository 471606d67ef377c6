package producecmd

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/cli/config"
	"github.com/kproduce/kproduce/internal/cli/input"
	"github.com/kproduce/kproduce/pkg/sender"
)

// handRun is a run whose reads go to a dry-run producer (its records
// complete during the call, as in a real run once their batches are done),
// counting the outcomes, and a read of n records of topic t.
func handRun(t testing.TB, n int) (*producerRun, []input.Record, *int) {
	prod, err := sender.New(sender.DryRun(6))
	require.NoError(t, err)
	t.Cleanup(func() { _ = prod.Close(context.Background()) })
	outcomes := 0
	r := &producerRun{opts: &config.Options{}, dry: true, prod: prod, sources: []string{"in"},
		promiseFn: func(rec *sender.Record, err error) {
			if err == nil && rec.Opaque.(*input.Origin).Source == "in" {
				outcomes++
			}
		}}
	recs := make([]input.Record, n)
	for i := range recs {
		recs[i].Topic, recs[i].Partition, recs[i].Number = "t", -1, int64(i+1)
		recs[i].Value = []byte(fmt.Sprintf("value %d", i))
	}
	return r, recs, &outcomes
}

// TestHandReusesOrigins: in steady state, handing a read's records to the
// producer allocates nothing: the records' Origins and their Chunk come
// back to the run's pool once the producer is done with them.
func TestHandReusesOrigins(t *testing.T) {
	r, recs, outcomes := handRun(t, maxBatchRecords)
	ctx := context.Background()
	require.True(t, r.hand(ctx, 0, recs)) // the first read makes the pool's memory
	allocs := testing.AllocsPerRun(50, func() {
		if !r.hand(ctx, 0, recs) {
			t.Fatal("hand stopped")
		}
	})
	require.Zero(t, allocs, "allocations per read")
	require.Equal(t, 52*maxBatchRecords, *outcomes, "every record routed, with its Origin")
}

// BenchmarkHand hands reads of maxBatchRecords records to a dry-run
// producer: the read loop's cost per read, allocations included.
func BenchmarkHand(b *testing.B) {
	r, recs, _ := handRun(b, maxBatchRecords)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		r.hand(ctx, 0, recs)
	}
}
