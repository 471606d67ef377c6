package network

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// This file holds what SASL needs beyond one exchange: credentials
// prepared in the background (SASLPreparer) and re-authentication
// (KIP-368).
//
// Re-authentication: when the final SaslAuthenticate (v1+) of a
// connection carries a session lifetime, the connection is due for
// re-authentication at a random 85-95% of it (as in the Java client), and
// at least a second (half of a session shorter than two) before its end.
// From then on the node is not ready: no new request is sent on it. Once
// its in-flight requests have completed and the credentials are ready,
// the Client runs a new SASL exchange (SaslHandshake, SaslAuthenticate)
// on the same connection, with a new session, and the node is ready
// again. A connection the broker closes meanwhile (the session ended
// first) is an ordinary disconnection, retried like any other.

// saslReady reports whether a connection may start authenticating now: no
// SASL, or the mechanism's credentials are ready. While they are being
// obtained it remembers why (bootstrap errors say so); a final failure of
// the credentials fails the Client as an authentication failure does.
func (c *Client) saslReady(now time.Time) bool {
	p, ok := c.cfg.SASL.(SASLPreparer)
	if !ok {
		return true
	}
	if c.saslErr != nil {
		return false
	}
	c.saslPrepared = true
	err := p.Prepare(c)
	switch {
	case err == nil:
		c.saslPending = nil
		return true
	case errors.Is(err, ErrSASLPending):
		if c.saslPending == nil || c.saslPending.Error() != err.Error() {
			c.log.Debug("waiting for SASL credentials", "err", err)
		}
		c.saslPending = err
		return false
	}
	c.saslErr = fmt.Errorf("%w: SASL %s: %w", ErrAuthentication, c.cfg.SASL.Name(), err)
	c.log.Info("authentication failed", "err", c.saslErr)
	if !c.Reached() && c.boot.err == nil {
		c.boot.err = &BootstrapError{Credentials: c.saslErr}
		c.md.Failed(c.boot.err, now)
	} else {
		c.md.Failed(c.saslErr, now)
	}
	return false
}

// releaseSASL tells a SASLPreparer the Client no longer needs credentials.
func (c *Client) releaseSASL() {
	if p, ok := c.cfg.SASL.(SASLPreparer); ok && c.saslPrepared {
		p.Release(c)
	}
}

// authenticated completes a SASL exchange: the node is ready, and due for
// re-authentication before its session ends when the broker gave the
// session a lifetime.
func (c *Client) authenticated(node int32, lifetime time.Duration, now time.Time) {
	st := c.states.get(node)
	if st == nil {
		return
	}
	reauth := st.reauth
	st.reauth = false
	st.reauthAt = time.Time{}
	if lifetime > 0 {
		st.reauthAt = now.Add(reauthDelay(lifetime, c.cfg.ReauthJitter()))
	}
	if !reauth {
		c.ready(node, now)
		if lifetime > 0 {
			c.log.Debug("session has a lifetime", "node", c.nodeName(node), "session_lifetime", lifetime,
				"reauthenticate_at", st.reauthAt)
		}
		return
	}
	c.states.ready(node)
	delete(c.sasl, node)
	c.reauths.Add(1)
	c.log.Debug("re-authenticated", "node", c.nodeName(node), "session_lifetime", lifetime)
}

// minReauthMargin is the least time left in a session when its
// re-authentication starts (half the session, when that is shorter): the
// requests in flight must complete and the exchange reach the broker
// before the session ends, even on a busy machine.
const minReauthMargin = time.Second

// reauthDelay is when, in a session of lifetime, to re-authenticate: at
// the share jitter of it (85-95%, as the Java client does), and no later
// than minReauthMargin (or half the session) before its end.
func reauthDelay(lifetime time.Duration, jitter float64) time.Duration {
	return min(time.Duration(float64(lifetime)*jitter), lifetime-min(minReauthMargin, lifetime/2))
}

// startDueReauthentications starts the re-authentication of every ready
// connection that is due and has nothing in flight any more.
func (c *Client) startDueReauthentications(responses []*ClientResponse, now time.Time) []*ClientResponse {
	var due []int32
	for id, st := range c.states.nodes {
		if st.state == Ready && !st.reauthAt.IsZero() && !now.Before(st.reauthAt) && c.inFlight.count(id) == 0 {
			due = append(due, id)
		}
	}
	if len(due) == 0 || !c.saslReady(now) {
		return responses
	}
	slices.Sort(due)
	for _, id := range due {
		st := c.states.get(id)
		st.reauth = true
		c.log.Debug("re-authenticating", "node", c.nodeName(id))
		responses = c.startSASL(responses, id, now)
	}
	return responses
}

// nextReauthDeadline is the earliest time a ready connection becomes due
// for re-authentication, and false when none will. Connections already
// due wait for an event (a response, the credentials), not a time.
func (c *Client) nextReauthDeadline(now time.Time) (time.Time, bool) {
	var earliest time.Time
	found := false
	for _, st := range c.states.nodes {
		if st.state != Ready || st.reauthAt.IsZero() || !now.Before(st.reauthAt) {
			continue
		}
		if !found || st.reauthAt.Before(earliest) {
			earliest, found = st.reauthAt, true
		}
	}
	return earliest, found
}

// Reauthentications is the number of re-authentications (KIP-368)
// completed. Safe from any goroutine.
func (c *Client) Reauthentications() int64 { return c.reauths.Load() }
