package network

import (
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
// share one exchange.

// ticketFetches are the service tickets being obtained for StartSession,
// and the outcomes not yet taken by the connections that waited for them.
type ticketFetches struct {
	mu       sync.Mutex                     // guards the fields below
	running  map[string][]ticketWaiter      // by service principal
	outcomes map[ticketWaiter]ticketOutcome // ended, not yet taken
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
		f.running, f.outcomes = map[string][]ticketWaiter{}, map[ticketWaiter]ticketOutcome{}
	}
	waiters, running := f.running[spn]
	if !slices.Contains(waiters, me) {
		f.running[spn] = append(waiters, me)
	}
	if !running {
		go m.fetchInBackground(sname, realm, spn)
	}
	return nil, fmt.Errorf("%w: kerberos %s: waiting for the KDC of realm %s (the kdc lines of krb5.conf) to answer, for a service ticket for %s",
		ErrSASLPending, m.login.principal(), m.login.realm, spn)
}

// fetchInBackground obtains the ticket of spn (bounded by the configured
// timeout), leaves the outcome to the connections waiting for it and
// wakes their Clients.
func (m *GSSAPIMechanism) fetchInBackground(sname types.PrincipalName, realm, spn string) {
	tkt, err := m.fetchServiceTicket(sname, realm)
	f := &m.fetches
	f.mu.Lock()
	waiters := f.running[spn]
	delete(f.running, spn)
	for _, wt := range waiters {
		f.outcomes[wt] = ticketOutcome{tkt: tkt, err: err}
	}
	f.mu.Unlock()
	for _, wt := range waiters {
		wt.w.Wakeup()
	}
}

// forget drops what w waits for or has not taken (a closed Client).
func (f *ticketFetches) forget(w Waker) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for spn, waiters := range f.running {
		f.running[spn] = slices.DeleteFunc(waiters, func(wt ticketWaiter) bool { return wt.w == w })
	}
	for wt := range f.outcomes {
		if wt.w == w {
			delete(f.outcomes, wt)
		}
	}
}
