package network

import (
	"context"
	"sync"
	"time"
)

// The ticket-granting ticket is refreshed in the background, as the Java
// client's login thread does: sessions start only now and then (a
// connection, a re-authentication), and a ticket cache's ticket can be
// renewed only while it is valid, so waiting for the next session to
// notice that the ticket nears its end could let it expire.

// Backoffs of a failed background refresh: the ticket serves until its
// end meanwhile, and the sessions report the failure themselves.
const (
	refreshRetryBackoff    = time.Second
	refreshRetryBackoffMax = time.Minute
)

// ticketRefresher runs the background refresh while some Client needs
// the mechanism.
type ticketRefresher struct {
	mu     sync.Mutex // guards the fields below
	users  map[Waker]struct{}
	cancel context.CancelFunc // stops the running loop; nil when none
	done   chan struct{}      // closed when the running loop ended
}

// Prepare registers w and starts the background refresh of the tickets,
// if not started. The credentials are there (NewGSSAPIMechanism read the
// keytab or the ticket cache): it never reports them pending.
func (m *GSSAPIMechanism) Prepare(w Waker) error {
	r := &m.refresh
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.users == nil {
		r.users = map[Waker]struct{}{}
	}
	r.users[w] = struct{}{}
	if r.cancel == nil {
		ctx, cancel := context.WithCancel(context.Background())
		r.cancel, r.done = cancel, make(chan struct{})
		go m.refreshLoop(ctx, r.done)
	}
	return nil
}

// Release unregisters w, and drops the service tickets obtained for it
// that it has not taken; the last one stops the background refresh.
func (m *GSSAPIMechanism) Release(w Waker) {
	m.fetches.forget(w)
	r := &m.refresh
	r.mu.Lock()
	delete(r.users, w)
	var done chan struct{}
	if len(r.users) == 0 && r.cancel != nil {
		r.cancel()
		r.cancel, done = nil, r.done
	}
	r.mu.Unlock()
	if done != nil {
		<-done
	}
}

// refreshLoop refreshes the ticket-granting ticket each time it is due,
// until ctx ends. The first login (a keytab's) is left to the first
// session, whose error then says what went wrong.
func (m *GSSAPIMechanism) refreshLoop(ctx context.Context, done chan struct{}) {
	defer close(done)
	failures := 0
	for {
		wait := refreshRetryBackoff // no ticket yet: look again soon
		if at := m.login.nextRefresh(); !at.IsZero() {
			wait = at.Sub(m.now())
		}
		if failures > 0 {
			wait = min(refreshRetryBackoff<<min(failures-1, 6), refreshRetryBackoffMax)
		}
		if sleepCtx(ctx, max(wait, time.Millisecond)) != nil {
			return
		}
		if at := m.login.nextRefresh(); at.IsZero() || m.now().Before(at) {
			continue
		}
		actx, cancel := context.WithTimeout(ctx, m.timeout)
		err := m.login.refreshTGT(actx)
		cancel()
		if err != nil {
			failures++
		} else {
			failures = 0
		}
	}
}

// refreshTGT makes sure the ticket-granting ticket is fresh, in its turn
// with the sessions' KDC exchanges.
func (l *kerberosLogin) refreshTGT(ctx context.Context) error {
	select {
	case l.turn <- struct{}{}:
		defer func() { <-l.turn }()
	case <-ctx.Done():
		return ctx.Err()
	}
	_, err := l.ticketGrantingTicket(ctx, l.now())
	return err
}

// nextRefresh is when the ticket-granting ticket is next due (renewAt).
func (l *kerberosLogin) nextRefresh() time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return renewAt(l.tgt, l.lastLogin, l.minRelogin)
}

// renewAt is the first time keepTGT no longer keeps tgt, obtained at
// last: its refresh time, or the end of minRelogin after last when that
// comes later and before the ticket ends.
func renewAt(tgt *kerberosTicket, last time.Time, minRelogin time.Duration) time.Time {
	if tgt == nil {
		return time.Time{}
	}
	at := tgt.refreshAt()
	if next := last.Add(minRelogin); !tgt.end.Before(next) && next.After(at) {
		at = next
	}
	if tgt.end.Before(at) {
		return tgt.end
	}
	return at
}

// sleepCtx waits d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
