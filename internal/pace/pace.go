// Package pace holds records back so that at most a rate of them per
// second goes on: a token bucket on an injected clock, which a caller asks
// either for one record's turn (Wait) or for every record due (WaitN), so
// that records can be handed on a batch at a time.
package pace

import (
	"context"
	"time"

	"golang.org/x/time/rate"
)

// MinWindow is the shortest wait a pacer relies on. A timer wakes up to
// about a millisecond late (Go's timers have that resolution on Linux), so
// records due less than MinWindow apart cannot each be timed: they go in
// groups of at most MinWindow's worth.
const MinWindow = 2 * time.Millisecond

// groupWait is how long WaitN lets records fall due before it returns
// them: records due less than groupWait apart go in groups of groupWait's
// worth, not one by one.
const groupWait = time.Millisecond

// Clock is what a pacer reads the time from and waits on.
type Clock struct {
	// Now returns the current time.
	Now func() time.Time
	// Sleep waits for d, or until ctx ends (returning its error).
	Sleep func(ctx context.Context, d time.Duration) error
}

// SystemClock is the real clock.
func SystemClock() Clock { return Clock{Now: time.Now, Sleep: sleepContext} }

// Pacer holds records back so that at most a rate of them per second go
// on, evenly spaced: a token bucket that holds window's worth of records
// (at least one, at least MinWindow's worth), so that after a pause at
// most that many go at once, and that a caller that fell behind by less
// than window catches up. The bucket starts with one token: the first
// record goes at once, the next ones at the rate. It is not safe for
// concurrent use.
type Pacer struct {
	lim   *rate.Limiter
	clock Clock
	// group is how many records WaitN waits for when none is due: the
	// records due within groupWait, at least one.
	group int
}

// New returns a pacer of perSecond records per second on the system
// clock, with a bucket of window's worth of records, or nil when perSecond
// is 0 or less (no limit).
func New(perSecond float64, window time.Duration) *Pacer {
	return NewWithClock(perSecond, window, SystemClock())
}

// NewWithClock is New on clock c.
func NewWithClock(perSecond float64, window time.Duration, c Clock) *Pacer {
	if perSecond <= 0 {
		return nil
	}
	window = max(window, MinWindow)
	burst := max(1, int(min(perSecond*window.Seconds(), 1e9)))
	lim := rate.NewLimiter(rate.Limit(perSecond), burst)
	lim.AllowN(c.Now(), burst-1) // a full bucket would let a burst go at the start
	group := min(burst, max(1, int(perSecond*groupWait.Seconds())))
	return &Pacer{lim: lim, clock: c, group: group}
}

// Wait blocks until the next record may go, and returns when it went.
// When ctx ends first it returns ctx's error at once, and the record's turn
// is left to the next one.
func (p *Pacer) Wait(ctx context.Context) (time.Time, error) {
	_, at, err := p.WaitN(ctx, 1)
	return at, err
}

// WaitN blocks until records may go and returns how many may go at once,
// at most most (1 or more), and when. It waits until the records due within
// a millisecond of one another are (at least one, at most most), so that
// records are handed on in groups rather than one timer wake-up each, and
// returns every record due by then. When ctx ends first it returns ctx's
// error at once, and takes no turn.
func (p *Pacer) WaitN(ctx context.Context, most int) (int, time.Time, error) {
	most = max(most, 1)
	want := float64(min(most, p.group))
	for {
		now := p.clock.Now()
		tokens := p.lim.TokensAt(now)
		if tokens >= want {
			n := min(most, int(tokens))
			p.lim.AllowN(now, n) // n tokens are there
			return n, now, nil
		}
		d := time.Duration((want - tokens) / float64(p.lim.Limit()) * float64(time.Second))
		if err := p.clock.Sleep(ctx, max(d, time.Nanosecond)); err != nil {
			return 0, time.Time{}, err
		}
	}
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
