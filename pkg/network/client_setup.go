package network

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// saslExchange is the SASL authentication under way with one node.
type saslExchange struct {
	session SASLSession
	// done: the session said the exchange completes once the last message
	// sent is accepted.
	done bool
	// lifetime is the session lifetime the broker gave (SaslAuthenticate
	// v1+), 0 for none.
	lifetime time.Duration
	// waitUntil, while the session has not started (its mechanism is a
	// SASLSessionStarter still obtaining credentials), is when the
	// connection stops waiting for it.
	waitUntil time.Time
}

// newSetupRequest builds a request of the connection setup (ApiVersions,
// SASL). It times out after the connection setup timeout rather than the
// request timeout: a peer that accepts connections but never answers (an
// HTTP server waiting for a request line, a stalled listener) is given up
// on as promptly as one that does not accept them.
func (c *Client) newSetupRequest(node int32, body protocol.Request, version int16, now time.Time) *ClientRequest {
	req := c.newInternalRequest(node, body, version, now)
	req.Timeout = c.setupTimeout()
	return req
}

// setupTimeout bounds each step of the connection setup: an answer to a
// setup request, a SASL session's credentials.
func (c *Client) setupTimeout() time.Duration {
	return c.bootstrapCap(min(c.cfg.RequestTimeout, c.cfg.ConnectionSetupTimeout))
}

// sendApiVersions sends the ApiVersions request that opens every
// connection.
func (c *Client) sendApiVersions(node int32, version int16, now time.Time) {
	body := &protocol.ApiVersionsRequest{
		ClientSoftwareName:    c.cfg.SoftwareName,
		ClientSoftwareVersion: c.cfg.SoftwareVersion,
	}
	c.doSend(c.newSetupRequest(node, body, version, now), kindApiVersions, now)
}

// handleApiVersionsResponse stores the broker's versions and moves on to
// SASL or Ready. A broker that does not know our ApiVersions version
// answers UNSUPPORTED_VERSION (KIP-511, in the v0 layout, or in another
// one that protocol.DecodeApiVersionsResponse reads leniently); the
// request is then retried at the newest version the answer names, else at
// v0, as Kafka's NetworkClient does. An answer that cannot be read, any
// other error, and a broker without a usable Metadata version end the node
// for good: the same request on a new connection would fail the same way.
func (c *Client) handleApiVersionsResponse(responses []*ClientResponse, node int32, r *inFlightRequest, payload []byte, now time.Time) []*ClientResponse {
	// The ApiVersions response header is always v0: the correlation id.
	resp, err := protocol.DecodeApiVersionsResponse(payload[4:], r.req.Version)
	if err != nil {
		err = fmt.Errorf("the broker's ApiVersions answer cannot be read (is this a Kafka broker?): %w", err)
		return c.closeConnection(responses, node, err, closeAuth, now)
	}
	if resp.ErrorCode != 0 {
		kerr := protocol.ErrorForCode(resp.ErrorCode)
		if r.req.Version > 0 && errors.Is(kerr, protocol.ErrUnsupportedVersion) {
			var v int16
			if rng, ok := resp.Find(protocol.KeyApiVersions); ok {
				v = rng.Max
			}
			// Never retry at the same or a newer version: that could loop.
			v = max(min(v, r.req.Version-1), 0)
			c.log.Debug("retrying ApiVersions at the broker's version", "node", c.nodeName(node), "version", v)
			c.sendApiVersions(node, v, now)
			return responses
		}
		err := fmt.Errorf("%w: ApiVersions v%d: %w", ErrUnsupportedVersion, r.req.Version, kerr)
		return c.closeConnection(responses, node, err, closeAuth, now)
	}
	c.apiVersions[node] = resp
	if _, err := negotiate(protocol.KeyMetadata, resp); err != nil {
		// Every use of the cluster needs Metadata.
		if cv, _ := protocol.ClientVersions(protocol.KeyMetadata); !hasVersionAbove(resp, protocol.KeyMetadata, cv.Min-1) {
			err = fmt.Errorf("%w; upgrade the broker (kproduce needs Kafka 0.11 or newer)", err)
		}
		return c.closeConnection(responses, node, err, closeAuth, now)
	}
	c.maybeThrottle(node, protocol.KeyApiVersions, r.req.Version, resp, now)
	if c.cfg.SASL == nil {
		c.ready(node, now)
		return responses
	}
	return c.startSASL(responses, node, now)
}

// ready marks node ready for requests.
func (c *Client) ready(node int32, now time.Time) {
	c.states.ready(node)
	delete(c.sasl, node)
	c.log.Debug("ready", "node", c.nodeName(node))
	if st := c.states.get(node); st != nil {
		c.noticeReady(st, now)
	}
}

// startSASL sends the SaslHandshake naming the mechanism.
func (c *Client) startSASL(responses []*ClientResponse, node int32, now time.Time) []*ClientResponse {
	c.states.authenticating(node)
	v, err := negotiate(protocol.KeySaslHandshake, c.apiVersions[node])
	if err != nil {
		if _, listed := c.apiVersions[node].Find(protocol.KeySaslHandshake); !listed {
			err = fmt.Errorf("the broker does not offer SASL (no SaslHandshake in its ApiVersions; is this listener"+
				" without SASL? try without --sasl-mechanism): %w", err)
		}
		return c.authFailed(responses, node, err, now)
	}
	body := &protocol.SaslHandshakeRequest{Mechanism: c.cfg.SASL.Name()}
	c.doSend(c.newSetupRequest(node, body, v, now), kindSaslHandshake, now)
	return responses
}

// handleSaslResponse handles SaslHandshake and SaslAuthenticate responses.
func (c *Client) handleSaslResponse(responses []*ClientResponse, node int32, r *inFlightRequest, payload []byte, now time.Time) []*ClientResponse {
	body := r.req.Body.NewResponse()
	if _, err := protocol.DecodeResponse(payload, r.req.Body.Key(), r.req.Version, body); err != nil {
		return c.authFailed(responses, node, err, now)
	}
	switch resp := body.(type) {
	case *protocol.SaslHandshakeResponse:
		return c.handleSaslHandshake(responses, node, resp, now)
	case *protocol.SaslAuthenticateResponse:
		ex := c.sasl[node]
		if resp.ErrorCode != 0 {
			var err error = protocol.ErrorForCode(resp.ErrorCode)
			if resp.ErrorMessage != nil && *resp.ErrorMessage != "" {
				err = fmt.Errorf("%w: %s", err, *resp.ErrorMessage)
			}
			if e, ok := sessionOf(ex).(SASLFailureExplainer); ok {
				err = e.ExplainFailure(err)
			}
			return c.authFailed(responses, node, err, now)
		}
		var lifetime time.Duration
		if resp.SessionLifetimeMs > 0 {
			lifetime = time.Duration(min(resp.SessionLifetimeMs, maxSessionLifetimeMs)) * time.Millisecond
		}
		if ex != nil {
			ex.lifetime = max(ex.lifetime, lifetime)
			if !ex.done {
				return c.saslStep(responses, node, resp.AuthBytes, now)
			}
			lifetime = ex.lifetime
		}
		c.authenticated(node, lifetime, now)
	}
	return responses
}

// maxSessionLifetimeMs bounds a session lifetime a broker gives (a year),
// so that a huge value cannot overflow a time.Duration.
const maxSessionLifetimeMs = 365 * 24 * 3600 * 1000

// sessionOf is the session of an exchange, nil when there is none.
func sessionOf(ex *saslExchange) SASLSession {
	if ex == nil {
		return nil
	}
	return ex.session
}

// handleSaslHandshake checks the broker enables the mechanism and starts
// the exchange.
func (c *Client) handleSaslHandshake(responses []*ClientResponse, node int32, resp *protocol.SaslHandshakeResponse, now time.Time) []*ClientResponse {
	if resp.ErrorCode != 0 {
		kerr := protocol.ErrorForCode(resp.ErrorCode)
		if errors.Is(kerr, protocol.ErrUnsupportedSaslMechanism) {
			kerr = fmt.Errorf("the broker does not enable SASL mechanism %s; it offers %s: %w",
				c.cfg.SASL.Name(), strings.Join(resp.Mechanisms, ", "), kerr)
		}
		return c.authFailed(responses, node, kerr, now)
	}
	if _, ok := c.cfg.SASL.(SASLSessionStarter); ok {
		c.sasl[node] = &saslExchange{waitUntil: now.Add(c.setupTimeout())}
		return c.startWaitingSession(responses, node, now)
	}
	session, err := c.cfg.SASL.NewSession(c.saslNode(node))
	if errors.Is(err, ErrSASLPending) {
		// The credentials expired and their refresh is late: try again
		// on a new connection once they are ready.
		cause := fmt.Errorf("SASL %s: %w", c.cfg.SASL.Name(), err)
		return c.closeConnection(responses, node, cause, closeTimeout, now)
	}
	if err != nil {
		return c.authFailed(responses, node, err, now)
	}
	c.sasl[node] = &saslExchange{session: session}
	return c.saslStep(responses, node, nil, now)
}

// saslNode is the node a SASL session authenticates with: the one the
// connection was made to.
func (c *Client) saslNode(node int32) Node {
	n, _ := c.md.Fetch().Node(node)
	if st := c.states.get(node); st != nil {
		n = st.node
	}
	return n
}

// saslStep feeds the broker's challenge to the session and sends its
// answer, or marks the node ready when the exchange is complete.
func (c *Client) saslStep(responses []*ClientResponse, node int32, challenge []byte, now time.Time) []*ClientResponse {
	ex := c.sasl[node]
	out, done, err := ex.session.Step(challenge)
	if err != nil {
		return c.authFailed(responses, node, err, now)
	}
	ex.done = done
	if out == nil {
		if done {
			c.authenticated(node, ex.lifetime, now)
			return responses
		}
		out = []byte{}
	}
	v, err := negotiate(protocol.KeySaslAuthenticate, c.apiVersions[node])
	if err != nil {
		return c.authFailed(responses, node, err, now)
	}
	body := &protocol.SaslAuthenticateRequest{AuthBytes: out}
	c.doSend(c.newSetupRequest(node, body, v, now), kindSaslAuthenticate, now)
	return responses
}

// authFailed closes the connection to node for good.
func (c *Client) authFailed(responses []*ClientResponse, node int32, err error, now time.Time) []*ClientResponse {
	if !errors.Is(err, ErrAuthentication) {
		err = fmt.Errorf("%w: SASL %s: %w", ErrAuthentication, c.cfg.SASL.Name(), err)
	}
	return c.closeConnection(responses, node, err, closeAuth, now)
}

// hasVersionAbove reports whether the broker serves key at a version above v.
func hasVersionAbove(resp *protocol.ApiVersionsResponse, key protocol.APIKey, v int16) bool {
	r, ok := resp.Find(key)
	return ok && r.Max > v
}
