package network

import (
	"errors"
	"fmt"
	"io"
	"time"
)

// closeConnection ends the connection to node (Kafka's
// processDisconnection): it closes the socket, moves the node to
// Disconnected (or to the final AuthenticationFailed, see classifyClose),
// fails the requests in flight and asks for a metadata update.
func (c *Client) closeConnection(responses []*ClientResponse, node int32, cause error, mode closeMode, now time.Time) []*ClientResponse {
	st := c.states.get(node)
	if st == nil {
		return responses
	}
	if st.conn != 0 {
		c.sel.Close(st.conn)
		delete(c.conns, st.conn)
	}
	delete(c.apiVersions, node)
	c.dropSASL(node)
	delete(c.sendAcksOwed, node)
	name := st.node.String()
	hadWork := st.state != Ready || c.inFlight.count(node) > 0
	mode, cause = c.classifyClose(node, st, cause, mode)
	var err error
	switch mode {
	case closeDisconnect:
		err = fmt.Errorf("%s: %w: %w", name, ErrDisconnected, cause)
	default:
		err = fmt.Errorf("%s: %w", name, cause)
	}
	st.lastErr = err
	if mode == closeAuth {
		c.states.authenticationFailed(node, now, err)
		msg := "cannot use the broker; not retrying"
		if errors.Is(err, ErrAuthentication) {
			msg = "authentication failed"
		}
		// Info: the failure is final and AuthenticationError hands it to
		// the caller, who reports it once.
		c.log.Info(msg, "err", err)
	} else {
		c.states.disconnected(node, now)
		c.log.Info("connection closed", "err", err)
	}
	responses = c.cancelInFlightRequests(responses, node, err, mode == closeTimeout, now)
	c.handleServerDisconnect(err, mode == closeAuth, now)
	c.noticeConnectionLost(st, err, mode == closeAuth, hadWork, now)
	return responses
}

// classifyClose decides whether a lost connection ends the node for good
// (closeAuth) and explains the cause. Final: a connection lost while
// authenticating (some brokers close instead of answering an error), a TLS
// failure no retry can fix, a peer that is not Kafka, and
// earlyCloseLimit connections in a row closed before any response, or,
// while bootstrapping without SASL, closed after ApiVersions before
// answering anything else (a listener that requires SASL does that).
func (c *Client) classifyClose(node int32, st *nodeConnectionState, cause error, mode closeMode) (closeMode, error) {
	// A clean close at a frame boundary (io.EOF): a connection reset, or
	// one cut in the middle of a response, is not what a SASL listener does.
	if mode == closeDisconnect && st.state == Ready && !st.answered && c.cfg.SASL == nil && !c.Reached() &&
		errors.Is(cause, io.EOF) && !errors.Is(cause, io.ErrUnexpectedEOF) {
		cause = fmt.Errorf("%w: the broker answered ApiVersions, then closed the connection instead of answering"+
			" (does the listener require SASL? set --sasl-mechanism, --sasl-username and --sasl-password): %w",
			ErrClosedBeforeResponse, cause)
	}
	early := mode == closeDisconnect && errors.Is(cause, ErrClosedBeforeResponse)
	n := c.states.countEarlyClose(node, early)
	if mode != closeDisconnect {
		return mode, cause
	}
	switch {
	case st.state == Authenticating && st.reauth:
		// The first authentication of this connection succeeded: the
		// session most likely ended before the re-authentication reached
		// the broker. A new connection authenticates anew.
		return mode, fmt.Errorf("the broker closed the connection during re-authentication (the session ended first?): %w", cause)
	case st.state == Authenticating:
		mech := "SASL"
		if c.cfg.SASL != nil {
			mech += " " + c.cfg.SASL.Name()
		}
		return closeAuth, fmt.Errorf("%w: %s: the broker closed the connection during SASL authentication"+
			" (wrong user name or password?): %w", ErrAuthentication, mech, cause)
	case isFinalSetupFailure(cause):
		return closeAuth, cause
	case early && n >= earlyCloseLimit:
		return closeAuth, fmt.Errorf("not retrying after %d connections in a row were closed before any response: %w", n, cause)
	case !early && st.state == CheckingAPIVersions && errors.Is(cause, io.EOF):
		return mode, fmt.Errorf("the broker closed the connection before answering ApiVersions"+
			" (a TLS listener spoken to in plaintext, or a broker older than Kafka 0.10?): %w", cause)
	}
	return mode, cause
}

// cancelInFlightRequests fails every request in flight to node: callers'
// requests are returned as disconnected (or timed out); a metadata request
// counts as a failed fetch.
func (c *Client) cancelInFlightRequests(responses []*ClientResponse, node int32, err error, timedOut bool, now time.Time) []*ClientResponse {
	for _, r := range c.inFlight.clearAll(node) {
		switch r.kind {
		case kindExternal:
			responses = append(responses, &ClientResponse{
				Request: r.req, ReceivedAt: now, Disconnected: true, TimedOut: timedOut, Err: err,
			})
		case kindMetadata:
			c.metadataInProgress = false
			c.md.Failed(err, now)
		}
	}
	return responses
}

// handleServerDisconnect is the metadata updater's view of a lost
// connection: a loss while a fetch is due counts as a failed fetch (so the
// backoff grows while no broker is reachable), an authentication failure is
// always recorded, and the disconnect may mean stale metadata, so an update
// is requested.
func (c *Client) handleServerDisconnect(err error, authFailed bool, now time.Time) {
	if authFailed || c.isMetadataUpdateDue(now) {
		c.md.Failed(err, now)
	}
	c.md.requestUpdate()
}

// forgetDepartedNodes drops the state of nodes that left the metadata (the
// bootstrap brokers after the first update, decommissioned brokers) once
// nothing is in flight to them.
func (c *Client) forgetDepartedNodes() {
	cluster := c.md.Fetch()
	for id, st := range c.states.nodes {
		if _, ok := cluster.Node(id); ok || c.inFlight.count(id) > 0 {
			continue
		}
		if st.conn != 0 {
			c.sel.Close(st.conn)
			delete(c.conns, st.conn)
		}
		delete(c.apiVersions, id)
		c.dropSASL(id)
		delete(c.sendAcksOwed, id)
		c.states.remove(id)
	}
}
