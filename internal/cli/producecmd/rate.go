package producecmd

import (
	"context"
	"time"

	"golang.org/x/time/rate"
)

// pacerWindow is the shortest wait a pacer relies on. A timer wakes up to
// about a millisecond late (Go's timers have that resolution on Linux), so
// records due less than pacerWindow apart cannot each be timed: they go in
// groups of at most pacerWindow's worth.
const pacerWindow = 2 * time.Millisecond

// pacer holds records back so that at most a rate of them per second is
// handed to the producer, evenly spaced: a token bucket holding one token,
// so that after a pause at most one record goes at once. Above 500 records
// per second, where records are due less than pacerWindow apart, the bucket
// holds pacerWindow's worth of records instead, so that late timer
// wake-ups do not lower the rate.
type pacer struct {
	lim   *rate.Limiter
	now   func() time.Time
	sleep func(ctx context.Context, d time.Duration) error
}

// newPacer returns a pacer of perSecond records per second, or nil when
// perSecond is 0 (no limit).
func newPacer(perSecond float64) *pacer {
	if perSecond <= 0 {
		return nil
	}
	burst := max(1, int(min(perSecond*pacerWindow.Seconds(), 1e6)))
	return &pacer{lim: rate.NewLimiter(rate.Limit(perSecond), burst), now: time.Now, sleep: sleepContext}
}

// wait blocks until the next record may go, and returns when it went.
// When ctx ends first it returns ctx's error at once, and the record's turn
// is given back.
func (p *pacer) wait(ctx context.Context) (time.Time, error) {
	now := p.now()
	res := p.lim.ReserveN(now, 1) // always OK: the burst is at least 1
	d := res.DelayFrom(now)
	if d <= 0 {
		return now, nil
	}
	if err := p.sleep(ctx, d); err != nil {
		res.CancelAt(p.now())
		return time.Time{}, err
	}
	return p.now(), nil
}

// sleepContext waits for d, or until ctx ends (returning its error).
func sleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
