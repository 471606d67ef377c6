package network

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"sync/atomic"
	"time"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// Client is Kafka's NetworkClient: it connects to brokers on demand,
// negotiates API versions and SASL, sends requests, matches responses and
// keeps the cluster metadata fresh. It is driven by one goroutine calling
// Ready, Send and Poll; only Wakeup is safe from other goroutines.
type Client struct {
	cfg   Config
	md    *Metadata
	sel   Selector
	clock Clock
	log   *slog.Logger

	states   *connectionStates
	inFlight *inFlightRequests
	conns    map[ConnID]int32 // live connection -> node id
	// apiVersions holds, per node, the versions the broker announced.
	apiVersions map[int32]*protocol.ApiVersionsResponse
	// sasl holds, per node, the SASL exchange under way.
	sasl map[int32]*saslExchange
	// saslPrepared: the mechanism is a SASLPreparer this Client asked for
	// credentials (and must release). saslPending is why they are not
	// ready yet, saslErr why they never will be.
	saslPrepared         bool
	saslPending, saslErr error
	reauths              atomic.Int64 // re-authentications completed

	// sendAcksOwed holds, per node, the frames of requests answered before
	// their send completion was reported (the reader and writer of a
	// connection race); the next send completions belong to them, oldest
	// first, and release their frames.
	sendAcksOwed map[int32][]*protocol.Writer

	nextConn           ConnID
	correlation        int32
	metadataInProgress bool              // a Metadata request is in flight
	aborted            []*ClientResponse // requests never sent, returned by the next Poll
	events             []Event           // reused by Poll
	writers            []*protocol.Writer
	scratch            []int32
	boot               bootstrapState
	closed             bool
}

// NewClient returns a Client over sel, fetching metadata into md. The
// clock is read once per Poll, after waiting for I/O.
func NewClient(cfg Config, md *Metadata, sel Selector, clock Clock) *Client {
	cfg = cfg.withDefaults()
	c := &Client{
		cfg:          cfg,
		md:           md,
		sel:          sel,
		clock:        clock,
		log:          cfg.Logger,
		inFlight:     newInFlightRequests(cfg.MaxInFlightPerConnection),
		conns:        make(map[ConnID]int32),
		apiVersions:  make(map[int32]*protocol.ApiVersionsResponse),
		sasl:         make(map[int32]*saslExchange),
		sendAcksOwed: make(map[int32][]*protocol.Writer),
		states: newConnectionStates(
			newExponentialBackoff(cfg.ReconnectBackoff, cfg.ReconnectBackoffMax, cfg.Jitter),
			newExponentialBackoff(cfg.ConnectionSetupTimeout, cfg.ConnectionSetupTimeoutMax, cfg.Jitter)),
	}
	md.setWakeup(sel.Wakeup)
	return c
}

// debug reports whether debug logs are kept, for the logs whose
// arguments cost something to build.
func (c *Client) debug() bool { return c.log.Enabled(context.Background(), slog.LevelDebug) }

// Metadata returns the metadata the Client keeps fresh.
func (c *Client) Metadata() *Metadata { return c.md }

// Ready reports whether a request can be sent to node now. When it cannot
// and the connection states allow (not connected, reconnect backoff
// passed), it starts connecting.
func (c *Client) Ready(node int32, now time.Time) bool {
	if c.closed {
		return false
	}
	if c.IsReady(node, now) {
		return true
	}
	if c.states.canConnect(node, now) {
		c.initiateConnect(node, now)
	}
	return false
}

// IsReady reports whether a request can be sent to node now: connected,
// versions negotiated, authenticated, not throttled, room in flight, and no
// metadata fetch due (a due fetch goes first, as in Kafka).
func (c *Client) IsReady(node int32, now time.Time) bool {
	return !c.closed && !c.isMetadataUpdateDue(now) && c.canSendRequest(node, now)
}

// canSendRequest: ready connection and room in flight.
func (c *Client) canSendRequest(node int32, now time.Time) bool {
	return c.states.isReady(node, now) && c.inFlight.canSendMore(node)
}

// ConnectionDelay is how long to wait before the node's connection state
// may change: the reconnect backoff remaining when disconnected, the
// connection setup time remaining when connecting, the throttle time
// remaining when the broker throttles the client, otherwise a very long
// time (a network event will wake Poll).
func (c *Client) ConnectionDelay(node int32, now time.Time) time.Duration {
	return c.states.connectionDelay(node, now)
}

// ConnectionFailed reports whether the last connection to node failed
// (disconnected or authentication failed).
func (c *Client) ConnectionFailed(node int32) bool { return c.states.isDisconnected(node) }

// AuthenticationError is the error of node's failed authentication, or nil.
// When the SASL mechanism's credentials failed for good, every node has
// that error.
func (c *Client) AuthenticationError(node int32) error {
	if err := c.states.authenticationError(node); err != nil {
		return err
	}
	if c.saslErr != nil {
		return fmt.Errorf("%s: %w", c.nodeName(node), c.saslErr)
	}
	return nil
}

// ConnectionState is the state of the connection to node.
func (c *Client) ConnectionState(node int32) ConnectionState { return c.states.state(node) }

// InFlightRequestCount is the number of requests in flight to node,
// including the Client's own (ApiVersions, SASL, Metadata).
func (c *Client) InFlightRequestCount(node int32) int { return c.inFlight.count(node) }

// HasInFlightRequests reports whether any request is in flight.
func (c *Client) HasInFlightRequests() bool { return !c.inFlight.isEmpty() }

// Wakeup makes a blocked Poll return early. Safe from any goroutine.
func (c *Client) Wakeup() { c.sel.Wakeup() }

// Close closes every connection. Requests in flight are dropped without a
// response; Poll returns nothing afterwards. The SASL mechanism's
// background work for this Client stops (see SASLSessionStarter and
// SASLPreparer).
func (c *Client) Close() {
	if c.closed {
		return
	}
	c.closed = true
	c.md.setWakeup(nil)
	c.sel.CloseAll()
	for node := range c.sasl {
		c.dropSASL(node)
	}
	c.releaseSASL()
}

// NewClientRequest creates a request to node with the next correlation id.
// A timeout of 0 means Config.RequestTimeout.
func (c *Client) NewClientRequest(node int32, body protocol.Request, now time.Time, expectResponse bool, timeout time.Duration, attachment any) *ClientRequest {
	if timeout <= 0 {
		timeout = c.cfg.RequestTimeout
	}
	return &ClientRequest{
		Destination:    node,
		CorrelationID:  c.nextCorrelationID(),
		Body:           body,
		ExpectResponse: expectResponse,
		CreatedAt:      now,
		Timeout:        timeout,
		Attachment:     attachment,
	}
}

func (c *Client) nextCorrelationID() int32 {
	id := c.correlation
	if c.correlation == math.MaxInt32 {
		c.correlation = 0
	} else {
		c.correlation++
	}
	return id
}

// Send writes req to its destination, which must be ready (see Ready). The
// version is the newest both the broker and kproduce speak (and the body
// allows, when it is a protocol.VersionBounded); when they share none, the
// request is not sent and the next Poll returns it with an error
// wrapping ErrUnsupportedVersion. A body that is a protocol.VersionChecker
// is checked at that version first, and its error fails it the same way. The outcome always comes from Poll; an
// error is returned only when the node is not ready or the Client is
// closed, and then the request was not taken.
func (c *Client) Send(req *ClientRequest, now time.Time) error {
	if c.closed {
		return ErrClientClosed
	}
	if !c.canSendRequest(req.Destination, now) {
		return fmt.Errorf("%s: %w (%s)", c.nodeName(req.Destination), ErrNotReady, c.states.state(req.Destination))
	}
	version, err := c.requestVersion(req.Destination, req.Body)
	if vc, ok := req.Body.(protocol.VersionChecker); ok && err == nil {
		if err = vc.CheckVersion(version); err != nil {
			err = fmt.Errorf("%s: %w", c.nodeName(req.Destination), err)
		}
	}
	if err != nil {
		c.log.Debug("request not sent", "node", req.Destination, "err", err)
		c.aborted = append(c.aborted, &ClientResponse{Request: req, ReceivedAt: now, Err: err})
		return nil
	}
	req.Version = version
	c.doSend(req, kindExternal, now)
	return nil
}

// LeastLoadedNode is Kafka's leastLoadedNode: a ready node with the fewest
// requests in flight; else a node whose connection is being set up; else
// the node that can connect and tried least recently. ok is false when no
// node qualifies (all backing off or failed). The scan starts at a random
// node.
func (c *Client) LeastLoadedNode(now time.Time) (int32, bool) {
	nodes := c.md.Fetch().Nodes()
	if len(nodes) == 0 {
		return -1, false
	}
	offset := c.cfg.Rand(len(nodes))
	inflight := math.MaxInt
	var ready, connecting, canConnect int32
	var foundReady, foundConnecting, foundCanConnect bool
	for i := range nodes {
		id := nodes[(offset+i)%len(nodes)].ID
		switch {
		case c.canSendRequest(id, now):
			n := c.inFlight.count(id)
			if n == 0 {
				return id, true
			}
			if n < inflight {
				inflight, ready, foundReady = n, id, true
			}
		case c.states.isPreparingConnection(id):
			connecting, foundConnecting = id, true
		case c.states.canConnect(id, now):
			if !foundCanConnect || c.states.lastConnectAttempt(canConnect).After(c.states.lastConnectAttempt(id)) {
				canConnect, foundCanConnect = id, true
			}
		}
	}
	switch {
	case foundReady:
		return ready, true
	case foundConnecting:
		return connecting, true
	case foundCanConnect:
		return canConnect, true
	}
	return -1, false
}

// initiateConnect starts a new connection to node, if the metadata knows
// the node and the SASL credentials, if any, are ready.
func (c *Client) initiateConnect(id int32, now time.Time) {
	node, ok := c.md.Fetch().Node(id)
	if !ok || !c.saslReady(now) {
		return // unknown, or it left the metadata; or no credentials yet
	}
	c.nextConn++
	conn := c.nextConn
	st := c.states.connecting(node, conn, now)
	st.setupTimeout = c.bootstrapCap(st.setupTimeout)
	c.conns[conn] = id
	c.log.Debug("connecting", "node", node.String(), "conn", uint64(conn))
	c.sel.Connect(conn, node, st.setupTimeout)
}

// nodeName names a node in errors: "broker 2 (host:port)".
func (c *Client) nodeName(id int32) string {
	if st := c.states.get(id); st != nil {
		return st.node.String()
	}
	if n, ok := c.md.Fetch().Node(id); ok {
		return n.String()
	}
	return fmt.Sprintf("broker %d", id)
}
