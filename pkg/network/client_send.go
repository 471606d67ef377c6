package network

import (
	"fmt"
	"time"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// maxPooledWriters and maxPooledWriterBytes bound the frame buffers kept
// for reuse (at most 1 MiB).
const (
	maxPooledWriters     = 16
	maxPooledWriterBytes = 64 << 10 // headers: record batches are referenced, not copied
)

// doSend encodes req at req.Version, records it in flight and queues its
// frame on the node's connection. The node must be connected.
func (c *Client) doSend(req *ClientRequest, kind requestKind, now time.Time) *inFlightRequest {
	w := c.getWriter()
	h := protocol.RequestHeader{
		APIKey:        req.Body.Key(),
		APIVersion:    req.Version,
		CorrelationID: req.CorrelationID,
		ClientID:      &c.cfg.ClientID,
	}
	protocol.AppendRequestFrame(w, &h, req.Body)
	req.Size = w.Len()
	r := &inFlightRequest{req: req, kind: kind, sendTime: now, w: w}
	c.inFlight.add(req.Destination, r)
	if c.debug() {
		c.log.Debug("sending request", "node", req.Destination, "api", h.APIKey.String(), "version", h.APIVersion,
			"correlation_id", h.CorrelationID, "bytes", w.Len())
	}
	c.sel.Send(c.states.get(req.Destination).conn, w.Frame())
	return r
}

// newInternalRequest builds one of the Client's own requests at version.
func (c *Client) newInternalRequest(node int32, body protocol.Request, version int16, now time.Time) *ClientRequest {
	req := c.NewClientRequest(node, body, now, true, c.cfg.RequestTimeout, nil)
	req.Version = version
	return req
}

// chooseVersion picks the newest version of key that both the broker of
// node and kproduce speak.
func (c *Client) chooseVersion(node int32, key protocol.APIKey) (int16, error) {
	v, err := negotiate(key, c.apiVersions[node])
	if err != nil {
		return 0, fmt.Errorf("%s: %w", c.nodeName(node), err)
	}
	return v, nil
}

// negotiate picks the newest version of key that both the broker, which
// announced api, and kproduce speak.
func negotiate(key protocol.APIKey, api *protocol.ApiVersionsResponse) (int16, error) {
	cv, ok := protocol.ClientVersions(key)
	if !ok {
		return 0, fmt.Errorf("%w: kproduce does not implement %s", ErrUnsupportedVersion, key)
	}
	if api == nil {
		return 0, fmt.Errorf("%w: the broker's api versions are unknown", ErrUnsupportedVersion)
	}
	bv, ok := api.Find(key)
	if !ok {
		return 0, fmt.Errorf("%w: the broker does not support %s (kproduce speaks v%d-v%d)",
			ErrUnsupportedVersion, key, cv.Min, cv.Max)
	}
	v := min(cv.Max, bv.Max)
	if v < max(cv.Min, bv.Min) {
		age := "too old"
		if bv.Min > cv.Max {
			age = "too new"
		}
		return 0, fmt.Errorf("%w: %s: the broker supports v%d-v%d, kproduce speaks v%d-v%d (the broker is %s)",
			ErrUnsupportedVersion, key, bv.Min, bv.Max, cv.Min, cv.Max, age)
	}
	return v, nil
}

// requestVersion is chooseVersion kept within the versions body allows
// (protocol.VersionBounded): the newest version the broker, kproduce and
// the request all admit.
func (c *Client) requestVersion(node int32, body protocol.Request) (int16, error) {
	key := body.Key()
	v, err := c.chooseVersion(node, key)
	b, bounded := body.(protocol.VersionBounded)
	if err != nil || !bounded {
		return v, err
	}
	allowed := b.AllowedVersions()
	if v > allowed.Max {
		cv, _ := protocol.ClientVersions(key)
		bv, _ := c.apiVersions[node].Find(key)
		v = allowed.Max
		if v < max(cv.Min, bv.Min) {
			v = allowed.Min - 1 // no version left
		}
	}
	if v < allowed.Min {
		return 0, fmt.Errorf("%s: %w: %s: this request needs v%d-v%d, which the broker and kproduce do not share",
			c.nodeName(node), ErrUnsupportedVersion, key, allowed.Min, allowed.Max)
	}
	return v, nil
}

// maybeThrottle applies a broker's throttle time, for the responses whose
// throttle the client must honour itself (KIP-219).
func (c *Client) maybeThrottle(node int32, key protocol.APIKey, version int16, resp protocol.Response, now time.Time) {
	ms := resp.ThrottleMillis()
	if ms <= 0 || !clientThrottles(key, version) {
		return
	}
	c.states.throttle(node, now.Add(time.Duration(ms)*time.Millisecond))
	c.log.Debug("broker throttles the client", "node", node, "throttle_ms", ms)
}

// clientThrottles reports whether, from this version of key on, the broker
// answers at once and expects the client to wait out the throttle time.
func clientThrottles(key protocol.APIKey, version int16) bool {
	switch key {
	case protocol.KeyProduce, protocol.KeyMetadata:
		return version >= 6
	case protocol.KeyApiVersions:
		return version >= 2
	case protocol.KeyInitProducerId:
		return version >= 1
	case protocol.KeyCreateTopics:
		return version >= 3
	case protocol.KeyFindCoordinator:
		return version >= 2
	case protocol.KeyAddPartitionsToTxn, protocol.KeyEndTxn:
		return version >= 1
	case protocol.KeyFetch:
		return version >= 8
	case protocol.KeyListOffsets:
		return version >= 3
	}
	return false
}

func (c *Client) getWriter() *protocol.Writer {
	if n := len(c.writers); n > 0 {
		w := c.writers[n-1]
		c.writers[n-1] = nil
		c.writers = c.writers[:n-1]
		return w
	}
	return protocol.NewWriter(make([]byte, 0, 256))
}

// putWriter recycles the frame buffer of a completed send.
func (c *Client) putWriter(w *protocol.Writer) {
	if w == nil || w.Retained() > maxPooledWriterBytes || len(c.writers) >= maxPooledWriters {
		return
	}
	w.Reset()
	c.writers = append(c.writers, w)
}
