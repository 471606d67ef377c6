package network

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// A SASLSessionStarter (GSSAPI) obtains a session's credentials in the
// background after the SaslHandshake: the connection waits for them in
// the Authenticating state with no request in flight, while the Client
// polls its other connections. The mechanism wakes the Client when the
// credentials are there (or failed); the Client then asks again. A
// connection still waiting at its deadline (the connection setup timeout,
// as for a setup request) fails to authenticate, as when the mechanism
// fails: the outside world it waits for (the KDC) is out of reach or
// too slow.

// startWaitingSession asks the mechanism for the session of node's
// exchange and, once it has one, sends its first message.
func (c *Client) startWaitingSession(responses []*ClientResponse, node int32, now time.Time) []*ClientResponse {
	ex := c.sasl[node]
	session, err := c.cfg.SASL.(SASLSessionStarter).StartSession(c.saslNode(node), c)
	switch {
	case errors.Is(err, ErrSASLPending):
		if now.Before(ex.waitUntil) {
			return responses
		}
		cause := fmt.Errorf("%w: gave up after %v (the connection setup timeout): %w", ErrConnectionSetupTimeout,
			c.setupTimeout(), err)
		return c.authFailed(responses, node, cause, now)
	case err != nil:
		return c.authFailed(responses, node, err, now)
	}
	ex.session, ex.waitUntil = session, time.Time{}
	return c.saslStep(responses, node, nil, now)
}

// startWaitingSessions asks again for the sessions of the connections
// waiting for their credentials, and gives up on those past their
// deadline.
func (c *Client) startWaitingSessions(responses []*ClientResponse, now time.Time) []*ClientResponse {
	if _, ok := c.cfg.SASL.(SASLSessionStarter); !ok {
		return responses
	}
	c.scratch = c.scratch[:0]
	for node, ex := range c.sasl {
		if !ex.waitUntil.IsZero() {
			c.scratch = append(c.scratch, node)
		}
	}
	slices.Sort(c.scratch)
	for _, node := range c.scratch {
		if ex := c.sasl[node]; ex != nil && !ex.waitUntil.IsZero() {
			responses = c.startWaitingSession(responses, node, now)
		}
	}
	return responses
}

// dropSASL forgets node's SASL exchange. One still waiting for its
// session is cancelled, so that the mechanism's background work for it
// (a KDC exchange) stops when no other connection waits for it; the
// node's connection state must still be there (it names the node).
func (c *Client) dropSASL(node int32) {
	ex := c.sasl[node]
	delete(c.sasl, node)
	if ex != nil && !ex.waitUntil.IsZero() {
		c.cfg.SASL.(SASLSessionStarter).CancelSession(c.saslNode(node), c)
	}
}

// nextSessionWaitDeadline is the earliest deadline of the connections
// waiting for their credentials, and false when none waits.
func (c *Client) nextSessionWaitDeadline() (time.Time, bool) {
	var earliest time.Time
	found := false
	for _, ex := range c.sasl {
		if ex.waitUntil.IsZero() {
			continue
		}
		if !found || ex.waitUntil.Before(earliest) {
			earliest, found = ex.waitUntil, true
		}
	}
	return earliest, found
}
