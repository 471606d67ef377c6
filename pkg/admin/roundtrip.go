package admin

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kproduce/kproduce/pkg/network"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// attempts remembers, for the error of a call that gives up, the brokers
// tried and the last error of each.
type attempts struct {
	nodes []int32          // in the order first tried
	names map[int32]string // "broker 2 (host:port)"
	errs  map[int32]error
}

func newAttempts() *attempts {
	return &attempts{names: map[int32]string{}, errs: map[int32]error{}}
}

// tried records that node was targeted.
func (a *attempts) tried(node int32, name string) {
	if _, ok := a.names[node]; !ok {
		a.nodes = append(a.nodes, node)
	}
	a.names[node] = name
}

// failed records the last error of node.
func (a *attempts) failed(node int32, name string, err error) {
	a.tried(node, name)
	a.errs[node] = err
}

// String lists every broker tried with its last error.
func (a *attempts) String() string {
	if len(a.nodes) == 0 {
		return "no broker could be tried"
	}
	parts := make([]string, 0, len(a.nodes))
	for _, n := range a.nodes {
		if err := a.errs[n]; err != nil {
			parts = append(parts, err.Error())
		} else {
			parts = append(parts, a.names[n]+": no answer")
		}
	}
	return strings.Join(parts, "; ")
}

// roundTrip sends body to the node pick chooses and returns the response;
// with a nil body it only waits until that node is connected and ready
// (versions negotiated, authenticated). Disconnections and timeouts are
// retried until ctx ends; final failures end it at once.
func (c *Client) roundTrip(ctx context.Context, pick target, body protocol.Request) (protocol.Response, error) {
	if c.closed {
		return nil, ErrClosed
	}
	stop := context.AfterFunc(ctx, c.net.Wakeup)
	defer stop()
	start := c.clock.Now()
	tries := newAttempts()
	var pending *network.ClientRequest
	for {
		if err := ctx.Err(); err != nil {
			return nil, c.giveUp(ctx, pick, tries, c.clock.Now().Sub(start))
		}
		now := c.clock.Now()
		node, ok, err := pick(now)
		if err != nil {
			return nil, err
		}
		if pending == nil && ok {
			tries.tried(node, c.nodeName(node))
			if body == nil && c.connected(node, now) {
				return nil, nil
			}
			if body != nil && c.net.Ready(node, now) {
				pending = c.net.NewClientRequest(node, body, now, true, c.attemptTimeout(ctx, now), nil)
				if err := c.net.Send(pending, now); err != nil {
					pending = nil
				}
			}
		}
		wait := c.pollWait(ctx, pending, node, ok, now)
		for _, resp := range c.net.Poll(wait, now) {
			if pending == nil || resp.Request != pending {
				continue // an answer to a call that gave up earlier
			}
			pending = nil
			switch {
			case resp.Body != nil:
				return resp.Body, nil
			case !resp.Disconnected:
				return nil, resp.Err // no common version, or a malformed response
			}
			tries.failed(resp.Request.Destination, c.nodeName(resp.Request.Destination), resp.Err)
		}
		if err := c.finalFailure(tries); err != nil {
			return nil, err
		}
	}
}

// connected reports whether node is ready for requests, starting its
// connection when needed. Unlike network.Client.Ready it ignores a due
// metadata refresh: the connection is what counts.
func (c *Client) connected(node int32, now time.Time) bool {
	if c.net.Ready(node, now) {
		return true
	}
	_, ok := c.net.APIVersions(node)
	return ok && c.net.ConnectionState(node) == network.Ready
}

// attemptTimeout is the request timeout of one attempt: the configured
// one, but no later than ctx's deadline.
func (c *Client) attemptTimeout(ctx context.Context, now time.Time) time.Duration {
	t := c.reqTTL
	if d, ok := ctx.Deadline(); ok {
		t = min(t, max(d.Sub(now), time.Millisecond))
	}
	return t
}

// pollWait is how long Poll may block: until ctx's deadline, the node's
// next connection state change, or maxPollWait (Poll itself lowers it to
// its request and connection deadlines).
func (c *Client) pollWait(ctx context.Context, pending *network.ClientRequest, node int32, ok bool, now time.Time) time.Duration {
	wait := maxPollWait
	if pending == nil && ok {
		wait = min(wait, max(c.net.ConnectionDelay(node, now), time.Millisecond))
	}
	if d, has := ctx.Deadline(); has {
		wait = min(wait, max(d.Sub(now), 0))
	}
	return wait
}

// finalFailure returns the bootstrap error of a network client that gave
// up reaching the cluster, or the error of a broker that failed for good
// (authentication, TLS, not Kafka), among those tried and those the
// network client connected to on its own (the metadata fetch), and
// records the last connection error of each.
func (c *Client) finalFailure(tries *attempts) error {
	if err := c.net.BootstrapError(); err != nil {
		return err
	}
	nodes := c.md.Fetch().Nodes()
	ids := make([]int32, 0, len(nodes)+len(tries.nodes))
	for _, n := range nodes {
		ids = append(ids, n.ID)
	}
	for _, id := range tries.nodes {
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	reached := c.net.Reached()
	for _, id := range ids {
		// While bootstrapping, one address failing for good is not the
		// end: another may lead to the cluster (the bootstrap error above
		// tells when none can).
		if err := c.net.AuthenticationError(id); err != nil && reached {
			return err
		}
		if err := c.net.LastConnectionError(id); err != nil {
			tries.failed(id, c.nodeName(id), err)
		}
	}
	return nil
}

// giveUp explains why a call ended with ctx: what was tried and why it
// failed.
func (c *Client) giveUp(ctx context.Context, pick target, tries *attempts, waited time.Duration) error {
	if errors.Is(ctx.Err(), context.Canceled) {
		return fmt.Errorf("%w (tried: %s)", ctx.Err(), tries)
	}
	waited = waited.Round(time.Millisecond)
	if err := c.md.LastError(); err != nil && len(tries.nodes) == 0 {
		return fmt.Errorf("%w: no broker answered within %v: %w", ErrUnreachable, waited, err)
	}
	if node, ok, _ := pick(c.clock.Now()); ok && len(tries.nodes) > 0 && tries.nodes[0] == node && len(tries.nodes) == 1 {
		return fmt.Errorf("%w: no answer from %s within %v: %s", ErrUnreachable, c.nodeName(node), waited, tries)
	}
	return fmt.Errorf("%w: no broker answered within %v: %s", ErrUnreachable, waited, tries)
}

// nodeName names node as the network client's errors do.
func (c *Client) nodeName(id int32) string {
	if n, ok := c.md.Fetch().Node(id); ok {
		return n.String()
	}
	return fmt.Sprintf("broker %d", id)
}
