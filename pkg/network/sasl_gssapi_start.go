package network

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/jcmturner/gokrb5/v8/types"
)

// A session's service ticket comes from the KDC, which may be slow or
// unreachable: StartSession asks for it on a goroutine of its own, so
// that the Client that drives the connection goes on with its other
// connections meanwhile, and wakes that Client when the KDC exchange
// ended. Connections to brokers of the same service principal (one host)
// share one exchange. The exchange lasts only while a connection waits
// for it: when the last one leaves (CancelSession, or Release of its
// Client), its context is cancelled, which ends the KDC exchange under
// way at once, and its outcome goes to nobody.

// ticketFetches are the service tickets being obtained for StartSession,
// and the outcomes not yet taken by the connections that waited for them.
//
// Invariants: every fetch in running has at least one waiter and its
// context is not cancelled; a fetch that left running (ended, or
// cancelled when its last waiter left) delivers nothing, so a later
// StartSession for the same service principal starts a new one.
type ticketFetches struct {
	mu       sync.Mutex                     // guards the fields below
	running  map[string]*ticketFetch        // by service principal
	outcomes map[ticketWaiter]ticketOutcome // ended, not yet taken
}

// ticketFetch is one background KDC exchange and the connections waiting
// for it.
type ticketFetch struct {
	waiters []ticketWaiter
	cancel  context.CancelFunc
}

// ticketWaiter is a connection waiting for a service ticket: its Client
// and node.
type ticketWaiter struct {
	w    Waker
	node int32
}

// ticketOutcome is how a background KDC exchange ended.
type ticketOutcome struct {
	tkt *kerberosTicket
	err error
}

// StartSession returns the exchange with node when the broker's service
// ticket is at hand (cached and fresh, or just obtained for this
// connection); otherwise it starts obtaining it in the background, if not
// under way, and returns an error wrapping ErrSASLPending: w is woken
// once the KDC exchange ended, and the next call returns the session, or
// the KDC's failure. It never blocks on the KDC.
func (m *GSSAPIMechanism) StartSession(node Node, w Waker) (SASLSession, error) {
	sname, realm := m.ServicePrincipal(node.Host)
	spn := principalString(sname, realm)
	me := ticketWaiter{w: w, node: node.ID}
	f := &m.fetches
	f.mu.Lock()
	defer f.mu.Unlock()
	if out, ok := f.outcomes[me]; ok {
		delete(f.outcomes, me)
		if out.err != nil {
			return nil, out.err
		}
		if m.now().Before(out.tkt.end) {
			return m.session(out.tkt, spn), nil
		}
	}
	if tkt := m.login.freshService(spn, m.now()); tkt != nil {
		return m.session(tkt, spn), nil
	}
	if f.running == nil {
		f.running, f.outcomes = map[string]*ticketFetch{}, map[ticketWaiter]ticketOutcome{}
	}
	fetch := f.running[spn]
	if fetch == nil {
		ctx, cancel := context.WithCancel(context.Background())
		fetch = &ticketFetch{cancel: cancel}
		f.running[spn] = fetch
		go m.fetchInBackground(ctx, fetch, sname, realm, spn)
	}
	if !slices.Contains(fetch.waiters, me) {
		fetch.waiters = append(fetch.waiters, me)
	}
	return nil, fmt.Errorf("%w: kerberos %s: waiting for the KDC of realm %s (the kdc lines of krb5.conf) to answer, for a service ticket for %s",
		ErrSASLPending, m.login.principal(), m.login.realm, spn)
}

// CancelSession tells that the connection of w to node no longer waits
// for its service ticket: the KDC exchange stops if no other connection
// waits for it, and an outcome not taken is dropped.
func (m *GSSAPIMechanism) CancelSession(node Node, w Waker) {
	me := ticketWaiter{w: w, node: node.ID}
	m.fetches.leave(func(wt ticketWaiter) bool { return wt == me })
}

// fetchInBackground obtains the ticket of spn (bounded by the configured
// timeout, and by ctx, cancelled when nobody waits any more), leaves the
// outcome to the connections waiting for it and wakes their Clients.
func (m *GSSAPIMechanism) fetchInBackground(ctx context.Context, fetch *ticketFetch, sname types.PrincipalName, realm, spn string) {
	tkt, err := m.fetchServiceTicket(ctx, sname, realm)
	fetch.cancel()
	f := &m.fetches
	f.mu.Lock()
	if f.running[spn] != fetch {
		f.mu.Unlock()
		return // cancelled: nobody waits
	}
	delete(f.running, spn)
	for _, wt := range fetch.waiters {
		f.outcomes[wt] = ticketOutcome{tkt: tkt, err: err}
	}
	f.mu.Unlock()
	for _, wt := range fetch.waiters {
		wt.w.Wakeup()
	}
}

// forget drops what w waits for or has not taken (a closed Client).
func (f *ticketFetches) forget(w Waker) {
	f.leave(func(wt ticketWaiter) bool { return wt.w == w })
}

// leave drops the waiters gone says are gone, and their outcomes; a fetch
// left without waiters is cancelled.
func (f *ticketFetches) leave(gone func(ticketWaiter) bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for spn, fetch := range f.running {
		fetch.waiters = slices.DeleteFunc(fetch.waiters, gone)
		if len(fetch.waiters) == 0 {
			fetch.cancel()
			delete(f.running, spn)
		}
	}
	for wt := range f.outcomes {
		if gone(wt) {
			delete(f.outcomes, wt)
		}
	}
}
