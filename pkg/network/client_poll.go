package network

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// closeMode says why a connection ends.
type closeMode int8

const (
	closeDisconnect closeMode = iota // peer closed, I/O or protocol error
	closeTimeout                     // request or connection setup timeout
	closeAuth                        // authentication failed
)

// Poll does the network I/O and returns the requests completed, in
// Kafka's order: it first starts a metadata fetch when one is due, waits
// up to timeout for network events (less when a metadata fetch, a
// connection setup or a request times out sooner), then handles completed
// sends (a request expecting no response completes here), received
// responses, disconnections, new connections (which start the API versions
// check), connection setup timeouts and request timeouts, then starts the
// SASL sessions whose credentials came (giving up on those that waited
// past the connection setup timeout). Requests that could not be sent
// (unsupported version) are returned by the next Poll without waiting.
func (c *Client) Poll(timeout time.Duration, now time.Time) []*ClientResponse {
	if c.closed {
		return nil
	}
	if len(c.aborted) > 0 {
		responses := c.aborted
		c.aborted = nil
		return responses
	}
	if c.boot.started.IsZero() {
		c.boot.started = now
	}
	metadataTimeout := c.maybeUpdateMetadata(now)
	c.events = c.sel.Poll(c.pollTimeout(min(timeout, metadataTimeout), now), c.events[:0])
	now = c.clock.Now()

	var responses []*ClientResponse
	responses = c.handleCompletedSends(responses, now)
	responses = c.handleCompletedReceives(responses, now)
	responses = c.handleDisconnections(responses, now)
	c.handleConnections(now)
	responses = c.handleTimedOutConnections(responses, now)
	responses = c.handleTimedOutRequests(responses, now)
	responses = c.startWaitingSessions(responses, now)
	responses = c.startDueReauthentications(responses, now)
	c.checkBootstrap(now)
	c.forgetDepartedNodes()
	clear(c.events) // drop references to payloads
	return responses
}

// pollTimeout lowers timeout to the next request or connection setup
// deadline.
func (c *Client) pollTimeout(timeout time.Duration, now time.Time) time.Duration {
	if d, ok := c.inFlight.nextDeadline(); ok {
		timeout = min(timeout, d.Sub(now))
	}
	if d, ok := c.states.nextSetupDeadline(); ok {
		timeout = min(timeout, d.Sub(now))
	}
	if d, ok := c.bootstrapDeadline(); ok {
		timeout = min(timeout, d.Sub(now))
	}
	if d, ok := c.nextReauthDeadline(now); ok {
		timeout = min(timeout, d.Sub(now))
	}
	if d, ok := c.nextSessionWaitDeadline(); ok {
		timeout = min(timeout, d.Sub(now))
	}
	return max(timeout, 0)
}

// handleCompletedSends marks sends complete, recycles their frames and
// completes the requests that expect no response.
func (c *Client) handleCompletedSends(responses []*ClientResponse, now time.Time) []*ClientResponse {
	for _, ev := range c.events {
		if ev.Kind != EventSendCompleted {
			continue
		}
		node, ok := c.conns[ev.Conn]
		if !ok {
			continue
		}
		if owed := c.sendAcksOwed[node]; len(owed) > 0 {
			c.putWriter(owed[0])
			c.sendAcksOwed[node] = owed[1:]
			continue
		}
		r := c.inFlight.markNextSent(node)
		if r == nil {
			continue
		}
		c.putWriter(r.w)
		r.w = nil
		if !r.req.ExpectResponse {
			c.inFlight.remove(node, r)
			responses = append(responses, &ClientResponse{Request: r.req, ReceivedAt: now})
		}
	}
	return responses
}

// handleCompletedReceives matches each response to the oldest request in
// flight on its connection and dispatches it.
func (c *Client) handleCompletedReceives(responses []*ClientResponse, now time.Time) []*ClientResponse {
	for _, ev := range c.events {
		if ev.Kind != EventReceived {
			continue
		}
		node, ok := c.conns[ev.Conn]
		if !ok {
			continue // the connection failed earlier in this Poll
		}
		r := c.inFlight.oldest(node)
		if len(ev.Payload) < 4 {
			cause := fmt.Errorf("%w: %s; closing the connection", ErrMalformedResponse, shortFrame(len(ev.Payload)))
			responses = c.closeConnection(responses, node, cause, closeDisconnect, now)
			continue
		}
		if err := checkCorrelation(r, ev.Payload); err != nil {
			cause := fmt.Errorf("%w: %w; closing the connection", ErrCorrelationMismatch, err)
			responses = c.closeConnection(responses, node, cause, closeDisconnect, now)
			continue
		}
		c.inFlight.completeOldest(node)
		if !r.sent {
			// Answered before its send completion was reported.
			c.sendAcksOwed[node] = append(c.sendAcksOwed[node], r.w)
			r.w = nil
		}
		if r.kind == kindExternal || r.kind == kindMetadata {
			c.states.answered(node)
		}
		switch r.kind {
		case kindExternal:
			responses = append(responses, c.completeExternal(node, r, ev.Payload, now))
		case kindMetadata:
			responses = c.handleMetadataResponse(responses, node, r, ev.Payload, now)
		case kindApiVersions:
			responses = c.handleApiVersionsResponse(responses, node, r, ev.Payload, now)
		case kindSaslHandshake, kindSaslAuthenticate:
			responses = c.handleSaslResponse(responses, node, r, ev.Payload, now)
		}
	}
	return responses
}

// shortFrame describes a response frame of n < 4 bytes, too short for the
// correlation id that starts every response.
func shortFrame(n int) string {
	if n == 0 {
		return "the broker sent an empty frame (size 0) where a response was expected"
	}
	return fmt.Sprintf("the broker sent a frame of %d bytes, too short for a response header", n)
}

// checkCorrelation verifies that payload answers r, the oldest request in
// flight (nil when none).
func checkCorrelation(r *inFlightRequest, payload []byte) error {
	if len(payload) < 4 {
		return fmt.Errorf("response of %d bytes is too short for a header", len(payload))
	}
	got := int32(binary.BigEndian.Uint32(payload))
	if r == nil {
		return fmt.Errorf("response with correlation id %d but no request in flight", got)
	}
	if got != r.req.CorrelationID {
		return fmt.Errorf("expected a response to %s v%d with correlation id %d, got correlation id %d",
			r.req.Body.Key(), r.req.Version, r.req.CorrelationID, got)
	}
	return nil
}

// completeExternal decodes the response to a caller's request.
func (c *Client) completeExternal(node int32, r *inFlightRequest, payload []byte, now time.Time) *ClientResponse {
	resp := &ClientResponse{Request: r.req, ReceivedAt: now}
	body := r.req.Body.NewResponse()
	if _, err := protocol.DecodeResponse(payload, r.req.Body.Key(), r.req.Version, body); err != nil {
		resp.Err = fmt.Errorf("%s: %w", c.nodeName(node), err)
		return resp
	}
	resp.Body = body
	c.noteReached()
	c.maybeThrottle(node, r.req.Body.Key(), r.req.Version, body, now)
	return resp
}

// handleDisconnections processes the connections the selector reports as
// closed.
func (c *Client) handleDisconnections(responses []*ClientResponse, now time.Time) []*ClientResponse {
	for _, ev := range c.events {
		if ev.Kind != EventDisconnected {
			continue
		}
		node, ok := c.conns[ev.Conn]
		if !ok {
			continue
		}
		cause := ev.Err
		if cause == nil {
			cause = errors.New("connection closed by the broker")
		}
		if c.states.isConnecting(node) {
			cause = fmt.Errorf("cannot connect: %w%s", cause, connectHint(cause))
		}
		responses = c.closeConnection(responses, node, cause, closeDisconnect, now)
	}
	return responses
}

// handleConnections starts the API versions check of new connections.
func (c *Client) handleConnections(now time.Time) {
	for _, ev := range c.events {
		if ev.Kind != EventConnected {
			continue
		}
		node, ok := c.conns[ev.Conn]
		if !ok || !c.states.isConnecting(node) {
			continue
		}
		c.log.Debug("connected; checking api versions", "node", c.nodeName(node))
		c.states.checkingAPIVersions(node)
		cv, _ := protocol.ClientVersions(protocol.KeyApiVersions)
		c.sendApiVersions(node, cv.Max, now)
	}
}

// handleTimedOutConnections closes the connections still not set up after
// their setup timeout.
func (c *Client) handleTimedOutConnections(responses []*ClientResponse, now time.Time) []*ClientResponse {
	c.scratch = c.states.nodesWithConnectionSetupTimeout(c.scratch[:0], now)
	slices.Sort(c.scratch)
	for _, node := range c.scratch {
		st := c.states.get(node)
		cause := fmt.Errorf("%w after %v (broker unreachable, or a plaintext listener spoken to with TLS?)",
			ErrConnectionSetupTimeout, st.setupTimeout)
		responses = c.closeConnection(responses, node, cause, closeDisconnect, now)
	}
	return responses
}

// handleTimedOutRequests closes the connections with a request in flight
// past its timeout, as Kafka does: a broker that does not answer one
// request is not trusted with the others.
func (c *Client) handleTimedOutRequests(responses []*ClientResponse, now time.Time) []*ClientResponse {
	c.scratch = c.inFlight.nodesWithTimedOutRequests(c.scratch[:0], now)
	slices.Sort(c.scratch)
	for _, node := range c.scratch {
		var cause error = ErrRequestTimedOut
		for _, r := range c.inFlight.byNode[node] {
			if !now.Before(r.deadline()) {
				hint := ""
				if r.kind == kindApiVersions {
					hint = " (is this the address of a Kafka listener?)"
				}
				cause = fmt.Errorf("%w: no response to %s v%d (correlation id %d) within %v%s",
					ErrRequestTimedOut, r.req.Body.Key(), r.req.Version, r.req.CorrelationID, r.req.Timeout, hint)
				break
			}
		}
		c.log.Info("disconnecting", "node", c.nodeName(node), "err", cause)
		responses = c.closeConnection(responses, node, cause, closeTimeout, now)
	}
	return responses
}
