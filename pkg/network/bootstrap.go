package network

import (
	"cmp"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"syscall"
	"time"
)

// ErrBootstrap is wrapped by a BootstrapError: no bootstrap address led to
// the cluster.
var ErrBootstrap = errors.New("cannot reach the cluster")

// AddressFailure is why one bootstrap address did not lead to the cluster.
type AddressFailure struct {
	// Addr is the address as given (host:port).
	Addr string
	// Err is its last failure, naming the broker, or what the attempt under
	// way was still waiting for.
	Err error
	// Final is set when the address failed for a reason no retry can fix
	// (TLS, SASL, not Kafka, a broker too old).
	Final bool
}

// BootstrapError is the failure of a Client that never reached the
// cluster: every bootstrap address failed for good, or the bootstrap
// timeout passed before any of them answered. It names each address and
// why it failed, with the likely fix. errors.Is finds ErrBootstrap and the
// errors of the addresses (ErrTLSHandshake, ErrNotKafka, ...).
type BootstrapError struct {
	// Timeout is the bootstrap timeout that passed, 0 when every address
	// failed for good before it.
	Timeout time.Duration
	// Addresses lists the bootstrap addresses in the order given.
	Addresses []AddressFailure
	// Credentials, when set, is why no address was tried: the SASL
	// mechanism's credentials failed for good (an ErrAuthentication), or
	// were still awaited when the bootstrap timeout passed (an
	// ErrSASLPending).
	Credentials error
	// Authentication, when set, is the authentication failure (an
	// ErrAuthentication, naming the broker) that ended the bootstrap at
	// once: every broker takes the same credentials, so the others would
	// refuse them too.
	Authentication error
}

// Error lists every address and its cause. A single address that failed
// for good is its own error, which names it.
func (e *BootstrapError) Error() string {
	if e.Authentication != nil {
		return e.Authentication.Error()
	}
	if e.Timeout == 0 && len(e.Addresses) == 1 && e.Addresses[0].Err != nil {
		return e.Addresses[0].Err.Error()
	}
	if e.Credentials != nil && e.Timeout == 0 {
		return e.Credentials.Error()
	}
	var b strings.Builder
	b.WriteString(ErrBootstrap.Error())
	if e.Credentials != nil {
		fmt.Fprintf(&b, ": no broker tried within %v (--bootstrap-timeout): %v", e.Timeout, e.Credentials)
		return b.String()
	}
	if e.Timeout > 0 {
		fmt.Fprintf(&b, ": no bootstrap broker answered within %v (--bootstrap-timeout)", e.Timeout)
	} else {
		b.WriteString(": every bootstrap broker failed for good")
	}
	for i, a := range e.Addresses {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		if a.Err == nil {
			fmt.Fprintf(&b, "%s: not tried", a.Addr)
			continue
		}
		b.WriteString(a.Err.Error())
	}
	return b.String()
}

// Unwrap returns ErrBootstrap and the address errors.
func (e *BootstrapError) Unwrap() []error {
	errs := []error{ErrBootstrap}
	if e.Credentials != nil {
		errs = append(errs, e.Credentials)
	}
	if e.Authentication != nil {
		errs = append(errs, e.Authentication)
	}
	for _, a := range e.Addresses {
		if a.Err != nil {
			errs = append(errs, a.Err)
		}
	}
	return errs
}

// bootstrapState is the Client's view of the bootstrap: whether the
// cluster has answered, since when the Client tries, which addresses have
// reported their first failure, and the final error once it gave up.
type bootstrapState struct {
	reached  bool      // a broker answered a request other than the setup (see Client.Reached)
	started  time.Time // the first Poll; zero before it
	notified map[string]bool
	err      *BootstrapError
}

// Reached reports whether the cluster has answered once: a response to a
// request other than ApiVersions and SASL, or metadata that lists the
// cluster's brokers rather than the bootstrap addresses. Before that the
// Client is bootstrapping.
func (c *Client) Reached() bool { return c.boot.reached || !c.md.Fetch().IsBootstrap() }

// BootstrapError returns the *BootstrapError of a Client that gave up
// reaching the cluster, or nil. Once set it stays set.
func (c *Client) BootstrapError() error {
	if c.boot.err == nil {
		return nil
	}
	return c.boot.err
}

// noteReached ends the bootstrap: a broker answered.
func (c *Client) noteReached() { c.boot.reached = true }

// bootstrapDeadline is when the bootstrap timeout passes, and false when
// it cannot (reached, given up, no timeout, not started).
func (c *Client) bootstrapDeadline() (time.Time, bool) {
	b := &c.boot
	if c.Reached() || b.err != nil || c.cfg.BootstrapTimeout <= 0 || b.started.IsZero() {
		return time.Time{}, false
	}
	return b.started.Add(c.cfg.BootstrapTimeout), true
}

// checkBootstrap gives up on the cluster when every bootstrap address
// failed for good, or when the bootstrap timeout passed. Giving up records
// the error as a failed metadata fetch, which wakes whoever waits for
// metadata.
func (c *Client) checkBootstrap(now time.Time) {
	b := &c.boot
	if c.Reached() || b.err != nil {
		return
	}
	allFinal := c.finalFailure() != nil
	deadline, ok := c.bootstrapDeadline()
	timedOut := ok && !now.Before(deadline)
	authErr := c.bootstrapAuthFailure()
	if !allFinal && !timedOut && authErr == nil {
		return
	}
	e := &BootstrapError{Authentication: authErr}
	if !allFinal && authErr == nil {
		e.Timeout = c.cfg.BootstrapTimeout
	}
	nodes := slices.Clone(c.md.Fetch().Nodes())
	// In the order given: bootstrap ids count down from -1.
	slices.SortFunc(nodes, func(a, b Node) int { return cmp.Compare(b.ID, a.ID) })
	tried := false
	for _, n := range nodes {
		e.Addresses = append(e.Addresses, c.addressFailure(n, now))
		tried = tried || c.states.get(n.ID) != nil
	}
	if !tried && c.saslPending != nil {
		e.Credentials = fmt.Errorf("SASL %s: %w", c.cfg.SASL.Name(), c.saslPending)
	}
	b.err = e
	c.log.Info("giving up on the cluster", "err", e)
	c.md.Failed(e, now)
}

// bootstrapAuthFailure is the authentication failure of the first
// bootstrap address (in the order given) that failed to authenticate, or
// nil: the Client gives up on it at once, as the Java client does, since
// every broker takes the same credentials.
func (c *Client) bootstrapAuthFailure() error {
	var first error
	var firstID int32
	for _, n := range c.md.Fetch().Nodes() {
		if err := c.states.authenticationError(n.ID); errors.Is(err, ErrAuthentication) && (first == nil || n.ID > firstID) {
			first, firstID = err, n.ID
		}
	}
	return first
}

// addressFailure describes why bootstrap node n has not led to the
// cluster: its final error, its last error, or what its attempt under way
// is waiting for.
func (c *Client) addressFailure(n Node, now time.Time) AddressFailure {
	f := AddressFailure{Addr: n.Addr()}
	st := c.states.get(n.ID)
	switch {
	case st == nil:
	case st.authErr != nil:
		f.Err, f.Final = st.authErr, true
	case st.lastErr != nil:
		f.Err = st.lastErr
	case st.state != Disconnected:
		f.Err = fmt.Errorf("%s: still %s after %v (is this the address of a Kafka listener?)",
			n, st.state, now.Sub(st.lastConnectAttempt).Round(time.Millisecond))
	}
	return f
}

// bootstrapCap lowers a connection setup timeout while bootstrapping, to
// half the bootstrap timeout: an attempt that hangs (a silent listener, a
// plaintext listener spoken to with TLS) then fails, and says why, before
// the Client gives up.
func (c *Client) bootstrapCap(d time.Duration) time.Duration {
	if c.Reached() || c.cfg.BootstrapTimeout <= 0 {
		return d
	}
	return min(d, c.cfg.BootstrapTimeout/2)
}

// connectBootstrapNodes starts a connection to every bootstrap node that
// may connect now, so that one address that hangs does not hold up the
// others until its connection setup timeout.
func (c *Client) connectBootstrapNodes(now time.Time) {
	if c.Reached() {
		return
	}
	cluster := c.md.Fetch()
	for _, n := range cluster.Nodes() {
		if c.states.canConnect(n.ID, now) {
			c.initiateConnect(n.ID, now)
		}
	}
}

// connectHint suggests what to check for a connection that could not be
// opened: a refused port, a name that does not resolve.
func connectHint(err error) string {
	var dns *net.DNSError
	switch {
	case errors.As(err, &dns) && dns.IsNotFound:
		return fmt.Sprintf(" (no such host %q: check the name, or is the broker not started yet?)", dns.Name)
	case errors.As(err, &dns):
		return fmt.Sprintf(" (cannot resolve %q: check the name and the DNS)", dns.Name)
	case errors.Is(err, syscall.ECONNREFUSED):
		return " (is a broker listening there? check the host and port)"
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return " (no route to the host: check the address and the network)"
	}
	return ""
}
