package pace

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// manualClock is a clock that moves only when slept on: a sleep moves it
// (plus late, the lateness of every timer) and is recorded, unless the
// context has ended.
type manualClock struct {
	now    time.Time
	late   time.Duration
	sleeps []time.Duration
}

func (m *manualClock) clock() Clock {
	return Clock{
		Now: func() time.Time { return m.now },
		Sleep: func(ctx context.Context, d time.Duration) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			m.sleeps = append(m.sleeps, d)
			m.now = m.now.Add(d + m.late)
			return nil
		},
	}
}

func newManual(t *testing.T, perSecond float64, window time.Duration) (*Pacer, *manualClock) {
	t.Helper()
	m := &manualClock{now: time.Unix(1_700_000_000, 0)}
	p := NewWithClock(perSecond, window, m.clock())
	require.NotNil(t, p)
	return p, m
}

// waitAt waits for the next record's turn and returns how long it waited.
func waitAt(t *testing.T, ctx context.Context, p *Pacer, m *manualClock) time.Duration {
	t.Helper()
	before := m.now
	at, err := p.Wait(ctx)
	require.NoError(t, err)
	require.Equal(t, m.now, at, "the record goes when its wait ends")
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
		t.Run(tt.gap.String(), func(t *testing.T) {
			p, m := newManual(t, tt.rate, MinWindow)
			ctx := context.Background()
			assert.Zero(t, waitAt(t, ctx, p, m), "the first record goes at once")
			for i := 0; i < 5; i++ {
				assert.InDelta(t, tt.gap, waitAt(t, ctx, p, m), float64(time.Microsecond), "record %d", i+2)
			}
		})
	}
}

func TestPacerBurstIsOneRecord(t *testing.T) {
	p, m := newManual(t, 10, MinWindow)
	ctx := context.Background()
	waitAt(t, ctx, p, m)
	m.now = m.now.Add(time.Minute) // a long pause in the input
	assert.Zero(t, waitAt(t, ctx, p, m), "one record may go at once after a pause")
	assert.InDelta(t, 100*time.Millisecond, waitAt(t, ctx, p, m), float64(time.Microsecond), "but not two")
	m.now = m.now.Add(30 * time.Millisecond) // the caller was slow
	assert.InDelta(t, 70*time.Millisecond, waitAt(t, ctx, p, m), float64(time.Microsecond), "a slow caller's time counts")
}

func TestPacerStartsWithoutBurst(t *testing.T) {
	p, m := newManual(t, 1000, time.Second)
	ctx := context.Background()
	n, _, err := p.WaitN(ctx, 10_000)
	require.NoError(t, err)
	assert.Equal(t, 1, n, "a bucket of a second's worth starts with one record, not a second's worth")
	assert.Empty(t, m.sleeps)
}

// TestPacerKeepsHighRatesDespiteLateTimers: when records are due less than
// MinWindow apart and every timer wakes 1 ms late, the rate is still
// reached, in groups of at most MinWindow's worth of records.
func TestPacerKeepsHighRatesDespiteLateTimers(t *testing.T) {
	const perSecond = 20000
	p, m := newManual(t, perSecond, MinWindow)
	m.late = time.Millisecond
	ctx := context.Background()
	start := m.now
	group, largest := 0, 0
	const n = 100_000
	for i := 0; i < n; i++ {
		if waitAt(t, ctx, p, m) > 0 {
			group = 0
		}
		group++
		largest = max(largest, group)
	}
	elapsed := m.now.Sub(start).Seconds()
	assert.GreaterOrEqual(t, float64(n)/elapsed, 0.99*perSecond, "rate reached")
	assert.LessOrEqual(t, float64(n)/elapsed, perSecond*1.01, "and not exceeded")
	assert.LessOrEqual(t, largest, int(perSecond*MinWindow.Seconds())+1, "groups of at most MinWindow's worth")
}

// TestWaitNHoldsTheRateInBatches hands records on a batch at a time, as
// kproduce perf does, on a clock whose timers wake late and a caller that
// spends time on each batch (and once stalls): over ten seconds the count
// is the rate's within one group, and batches hold a millisecond's worth
// of records, not one each.
func TestWaitNHoldsTheRateInBatches(t *testing.T) {
	for _, perSecond := range []float64{50_000, 1234.5, 7.5, 1_000_000} {
		t.Run(strconv.FormatFloat(perSecond, 'f', -1, 64), func(t *testing.T) {
			p, m := newManual(t, perSecond, 250*time.Millisecond)
			m.late = 700 * time.Microsecond
			ctx := context.Background()
			start := m.now
			sent, batches, smallest := 0, 0, 1<<30
			for m.now.Sub(start) < 10*time.Second {
				n, at, err := p.WaitN(ctx, 1024)
				require.NoError(t, err)
				require.Equal(t, m.now, at)
				sent += n
				batches++
				if m.now.Sub(start) > time.Second {
					smallest = min(smallest, n)
				}
				m.now = m.now.Add(50 * time.Microsecond) // handing the batch over
				if batches == 100 {
					m.now = m.now.Add(100 * time.Millisecond) // a stall: caught up after
				}
			}
			want := perSecond * m.now.Sub(start).Seconds()
			assert.InDelta(t, want, float64(sent), max(perSecond*0.002, 1.5), "records handed over in 10 s")
			assert.GreaterOrEqual(t, smallest, min(1024, max(1, int(perSecond/1000))), "a batch holds a millisecond's worth")
		})
	}
}

func TestPacerStopsWhenContextEnds(t *testing.T) {
	p, m := newManual(t, 1, MinWindow)
	ctx, cancel := context.WithCancel(context.Background())
	waitAt(t, ctx, p, m)
	cancel()
	_, err := p.Wait(ctx)
	require.ErrorIs(t, err, context.Canceled)
	assert.Empty(t, m.sleeps, "no wait once interrupted")
	// The interrupted record took no turn: the next one waits one gap
	// from the previous record, not two.
	assert.InDelta(t, time.Second, waitAt(t, context.Background(), p, m), float64(time.Microsecond))
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
	assert.Nil(t, New(0, MinWindow))
	assert.Nil(t, New(-1, MinWindow))
}
