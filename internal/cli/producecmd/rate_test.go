package producecmd

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// manualPacer is a pacer on a manual clock: a sleep moves the clock and
// is recorded, unless the context has ended.
type manualPacer struct {
	*pacer
	clock  time.Time
	sleeps []time.Duration
}

func newManualPacer(t *testing.T, perSecond float64) *manualPacer {
	t.Helper()
	m := &manualPacer{pacer: newPacer(perSecond), clock: time.Unix(1_700_000_000, 0)}
	require.NotNil(t, m.pacer)
	m.now = func() time.Time { return m.clock }
	m.sleep = func(ctx context.Context, d time.Duration) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		m.sleeps = append(m.sleeps, d)
		m.clock = m.clock.Add(d)
		return nil
	}
	return m
}

// waitAt waits for the next record's turn and returns how long it waited.
func (m *manualPacer) waitAt(t *testing.T, ctx context.Context) time.Duration {
	t.Helper()
	before := m.clock
	at, err := m.wait(ctx)
	require.NoError(t, err)
	require.Equal(t, m.clock, at, "the record goes when its wait ends")
	return at.Sub(before)
}

func TestPacerSpacesRecordsEvenly(t *testing.T) {
	tests := []struct {
		rate float64
		gap  time.Duration
	}{
		{50, 20 * time.Millisecond},
		{0.5, 2 * time.Second},
		{3, time.Second / 3},
	}
	for _, tt := range tests {
		t.Run(time.Duration(float64(time.Second)/tt.rate).String(), func(t *testing.T) {
			m := newManualPacer(t, tt.rate)
			ctx := context.Background()
			assert.Zero(t, m.waitAt(t, ctx), "the first record goes at once")
			for i := 0; i < 5; i++ {
				assert.InDelta(t, tt.gap, m.waitAt(t, ctx), float64(time.Microsecond), "record %d", i+2)
			}
		})
	}
}

func TestPacerBurstIsOneRecord(t *testing.T) {
	m := newManualPacer(t, 10)
	ctx := context.Background()
	m.waitAt(t, ctx)
	m.clock = m.clock.Add(time.Minute) // a long pause in the input
	assert.Zero(t, m.waitAt(t, ctx), "one record may go at once after a pause")
	assert.InDelta(t, 100*time.Millisecond, m.waitAt(t, ctx), float64(time.Microsecond), "but not two")
	m.clock = m.clock.Add(30 * time.Millisecond) // the caller was slow
	assert.InDelta(t, 70*time.Millisecond, m.waitAt(t, ctx), float64(time.Microsecond), "a slow caller's time counts")
}

// TestPacerKeepsHighRatesDespiteLateTimers: when records are due less than
// pacerWindow apart and every timer wakes 1 ms late, the rate is still
// reached, in groups of at most pacerWindow's worth of records.
func TestPacerKeepsHighRatesDespiteLateTimers(t *testing.T) {
	const perSecond = 20000
	m := newManualPacer(t, perSecond)
	sleep := m.sleep
	m.sleep = func(ctx context.Context, d time.Duration) error { return sleep(ctx, d+time.Millisecond) }
	ctx := context.Background()
	start := m.clock
	group, largest := 0, 0
	const n = 100_000
	for i := 0; i < n; i++ {
		if m.waitAt(t, ctx) > 0 {
			group = 0
		}
		group++
		largest = max(largest, group)
	}
	elapsed := m.clock.Sub(start).Seconds()
	assert.GreaterOrEqual(t, float64(n)/elapsed, 0.99*perSecond, "rate reached")
	assert.LessOrEqual(t, float64(n)/elapsed, perSecond*1.01, "and not exceeded")
	assert.LessOrEqual(t, largest, int(perSecond*pacerWindow.Seconds())+1, "groups of at most pacerWindow's worth")
}

func TestPacerStopsWhenContextEnds(t *testing.T) {
	m := newManualPacer(t, 1)
	ctx, cancel := context.WithCancel(context.Background())
	m.waitAt(t, ctx)
	cancel()
	_, err := m.wait(ctx)
	require.ErrorIs(t, err, context.Canceled)
	assert.Empty(t, m.sleeps, "no wait once interrupted")
	// The interrupted record's turn was given back: the next one waits one
	// gap from the previous record, not two.
	assert.InDelta(t, time.Second, m.waitAt(t, context.Background()), float64(time.Microsecond))
}

func TestSleepContextEndsAtOnce(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	done := make(chan error, 1)
	go func() { done <- sleepContext(ctx, time.Hour) }()
	select {
	case err := <-done:
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(10 * time.Second):
		t.Fatal("sleepContext ignored its context")
	}
}

func TestNoPacerWithoutRate(t *testing.T) {
	assert.Nil(t, newPacer(0))
}
