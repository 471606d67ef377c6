package producecmd_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/kafkatest"
)

// TestE2ERateSpacesRecords: with --rate 50 the records read at once from
// stdin are handed over 20 ms apart, so their CreateTimes (their hand-over
// time) span at least (n-1)/rate. Only this lower bound is checked: a slow
// machine can only make the span longer. (A single gap may be shorter: a
// record due after a late timer wake-up goes that much sooner.)
func TestE2ERateSpacesRecords(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	const n, rate = 20, 50
	res := produceTo(t, c, strings.NewReader(kafkatest.NumberedLines("r", n)), "-t", "t", "-o", "none", "--rate", "50")
	require.Equal(t, 0, res.Code, res.Stderr)
	recs := kafkatest.ConsumeExactly(t, c, "t", n)
	ts := make([]int64, 0, n)
	for _, r := range recs {
		ts = append(ts, r.Timestamp.UnixMilli())
	}
	slices.Sort(ts)
	// 19 intervals of 20 ms: 380 ms. The bound leaves 10% for a busy
	// machine (a late first wake-up is caught up by the ones after it);
	// without --rate the 20 records would go within a few milliseconds.
	want := time.Duration(n-1) * time.Second / rate
	span := time.Duration(ts[n-1]-ts[0]) * time.Millisecond
	assert.GreaterOrEqual(t, span, want*9/10, "timestamps %v", ts)
}

// TestE2ERateStopsAtInterrupt: an interrupt while a record waits for its
// turn ends the run at once (the next record is due in 1000 s), exit 130,
// the waiting record reported as not sent.
func TestE2ERateStopsAtInterrupt(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	run := startKproduce(ctx, strings.NewReader("first\nsecond\nthird\n"), "-b", kafkatest.Brokers(c), "-t", "t", "--rate", "0.001")
	run.WaitStdout(t, 1, 30*time.Second) // the first record goes at once
	cancel()
	assert.Equal(t, cmdutil.ExitInterrupted, run.Wait(t, 30*time.Second))
	assert.Contains(t, run.Stderr.String(), "error: -:2: t/-1: interrupted before the record was sent")
	recs := kafkatest.ConsumeExactly(t, c, "t", 1)
	assert.Equal(t, "first", string(recs[0].Value))
}
