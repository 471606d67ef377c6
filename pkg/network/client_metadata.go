package network

import (
	"fmt"
	"time"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// This file is Kafka's DefaultMetadataUpdater: the Client fetches metadata
// from the least loaded node when the Metadata says an update is due.

// isMetadataUpdateDue reports whether a metadata fetch should start now.
func (c *Client) isMetadataUpdateDue(now time.Time) bool {
	return !c.metadataInProgress && c.md.TimeToNextUpdate(now) == 0
}

// maybeUpdateMetadata starts a metadata fetch when one is due and returns
// how long Poll may wait as far as metadata is concerned.
func (c *Client) maybeUpdateMetadata(now time.Time) time.Duration {
	wait := c.md.TimeToNextUpdate(now)
	if c.metadataInProgress {
		wait = max(wait, c.cfg.RequestTimeout)
	}
	if wait > 0 {
		return wait
	}
	node, ok := c.LeastLoadedNode(now)
	if !ok {
		if err := c.finalFailure(); err != nil {
			if c.boot.err != nil {
				err = c.boot.err // the bootstrap failed: name every address
			}
			// Every node failed for good (Kafka's Metadata.fatalError):
			// the fetch fails with their error, which also wakes whoever
			// waits for metadata. The refresh backoff paces the repeats.
			c.md.Failed(err, now)
			return max(c.md.TimeToNextUpdate(now), c.cfg.ReconnectBackoff)
		}
		c.log.Debug("no node available for a metadata request")
		return c.cfg.ReconnectBackoff
	}
	return c.maybeUpdateMetadataFrom(node, now)
}

// finalFailure is the error of the first node when every known node
// failed for good (AuthenticationFailed), nil otherwise.
func (c *Client) finalFailure() error {
	var first error
	for _, n := range c.md.Fetch().Nodes() {
		err := c.states.authenticationError(n.ID)
		if err == nil {
			return nil
		}
		if first == nil {
			first = err
		}
	}
	return first
}

// maybeUpdateMetadataFrom sends the metadata request to node when it is
// ready; otherwise it waits for connections under way, or starts one.
func (c *Client) maybeUpdateMetadataFrom(node int32, now time.Time) time.Duration {
	if c.canSendRequest(node, now) {
		c.sendMetadataRequest(node, now)
		return c.cfg.RequestTimeout
	}
	c.connectBootstrapNodes(now)
	if c.isAnyNodeConnecting() {
		return c.cfg.ReconnectBackoff
	}
	if c.states.canConnect(node, now) {
		c.initiateConnect(node, now)
		return c.cfg.ReconnectBackoff
	}
	return maxDelay // a network event will wake Poll
}

func (c *Client) isAnyNodeConnecting() bool {
	for _, n := range c.md.Fetch().Nodes() {
		if c.states.isConnecting(n.ID) {
			return true
		}
	}
	return false
}

// sendMetadataRequest sends a Metadata request for the Metadata's topics.
func (c *Client) sendMetadataRequest(node int32, now time.Time) {
	v, err := c.chooseVersion(node, protocol.KeyMetadata)
	if err != nil {
		c.md.Failed(err, now)
		return
	}
	body, requestVersion := c.md.newRequest()
	r := c.doSend(c.newInternalRequest(node, body, v, now), kindMetadata, now)
	r.metadataVersion = requestVersion
	c.metadataInProgress = true
}

// handleMetadataResponse installs the fetched metadata. A response that
// cannot be decoded is a final failure of its broker (no retry makes it
// decodable): the connection closes, the node is not used again, and the
// fetch fails with the decode error, which ends the bootstrap at once
// when no other address is left.
func (c *Client) handleMetadataResponse(responses []*ClientResponse, node int32, r *inFlightRequest, payload []byte,
	now time.Time) []*ClientResponse {
	c.metadataInProgress = false
	resp := &protocol.MetadataResponse{}
	if _, err := protocol.DecodeResponse(payload, protocol.KeyMetadata, r.req.Version, resp); err != nil {
		cause := fmt.Errorf("%w: Metadata v%d: %w", ErrMalformedResponse, r.req.Version, err)
		// closeConnection fails the fetch with the error, naming the node.
		return c.closeConnection(responses, node, cause, closeAuth, now)
	}
	c.noteReached()
	c.maybeThrottle(node, protocol.KeyMetadata, r.req.Version, resp, now)
	c.md.update(resp, r.metadataVersion, now)
	if c.debug() {
		c.log.Debug("metadata updated", "node", c.nodeName(node), "cluster", c.md.Fetch().String())
	}
	return responses
}
