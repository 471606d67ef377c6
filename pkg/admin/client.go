package admin

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/kproduce/kproduce/pkg/network"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// Config configures a Client. Zero fields take the network client's
// defaults.
type Config struct {
	// Brokers are the host:port addresses of the seed brokers.
	Brokers []string
	// ClientID is sent in every request header (default "kproduce").
	ClientID string
	// SoftwareName and SoftwareVersion are sent to brokers that ask
	// (KIP-511).
	SoftwareName, SoftwareVersion string
	// TLS, when set, wraps every connection in TLS.
	TLS *tls.Config
	// SASL, when set, authenticates every connection.
	SASL network.SASLMechanism
	// RequestTimeout bounds one attempt of a request (default 30s).
	RequestTimeout time.Duration
	// BootstrapTimeout bounds the wait for the cluster's first answer
	// (zero: only the call's context does).
	BootstrapTimeout time.Duration
	// OnNotice is told of the connection failures a person would want to
	// know of at once; it runs on the calling goroutine and must not block.
	OnNotice func(network.Notice)
	// Logger receives debug and info logs (nil: none).
	Logger *slog.Logger
}

// maxPollWait bounds one wait in Poll, so the loop rechecks the state of
// connections it is not woken for.
const maxPollWait = 200 * time.Millisecond

// Client sends requests to a cluster and waits for their answers. It is
// safe for concurrent use; calls run one at a time.
type Client struct {
	mu     sync.Mutex // guards every field below, and the network client's use
	net    *network.Client
	md     *network.Metadata
	clock  network.Clock
	reqTTL time.Duration // the request timeout of one attempt
	closed bool
}

// New returns a Client for the cluster of cfg.Brokers. It does not
// connect: the first call does.
func New(cfg Config) (*Client, error) {
	if len(cfg.Brokers) == 0 {
		return nil, errors.New("admin: no seed brokers")
	}
	bootstrap, err := network.BootstrapNodes(cfg.Brokers)
	if err != nil {
		return nil, fmt.Errorf("admin: %w", err)
	}
	ncfg := network.Config{
		ClientID: cfg.ClientID, SoftwareName: cfg.SoftwareName, SoftwareVersion: cfg.SoftwareVersion,
		SASL: cfg.SASL, RequestTimeout: cfg.RequestTimeout, BootstrapTimeout: cfg.BootstrapTimeout,
		Notify: cfg.OnNotice, Logger: cfg.Logger,
	}
	if ncfg.RequestTimeout <= 0 {
		ncfg.RequestTimeout = network.DefaultRequestTimeout
	}
	md := network.NewMetadata(network.MetadataConfig{}, bootstrap)
	sel := network.NewSocketSelector(network.SocketConfig{TLS: cfg.TLS})
	clock := network.SystemClock{}
	return &Client{
		net:    network.NewClient(ncfg, md, sel, clock),
		md:     md,
		clock:  clock,
		reqTTL: ncfg.RequestTimeout,
	}, nil
}

// Close closes every connection. Calls after Close fail with ErrClosed.
func (c *Client) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.closed {
		c.closed = true
		c.net.Close()
	}
}

// RequestTimeout is how long one attempt of a request may take.
func (c *Client) RequestTimeout() time.Duration { return c.reqTTL }

// Metadata fetches metadata for topics (nil: every topic) from the least loaded broker.
func (c *Client) Metadata(ctx context.Context, topics []string) (*protocol.MetadataResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.metadataLocked(ctx, topics)
}

// Request sends req to node and waits for its response (connecting, negotiating versions and authenticating first).
func (c *Client) Request(ctx context.Context, node int32, req protocol.Request) (protocol.Response, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	resp, err := c.roundTrip(ctx, c.fixed(node), req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", req.Key(), err)
	}
	return resp, nil
}

// BrokerVersions returns the API version ranges node announced (connecting first if needed).
func (c *Client) BrokerVersions(ctx context.Context, node int32) (map[protocol.APIKey]protocol.VersionRange, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, err := c.roundTrip(ctx, c.fixed(node), nil); err != nil {
		return nil, fmt.Errorf("api versions: %w", err)
	}
	versions, ok := c.net.APIVersions(node)
	if !ok {
		return nil, fmt.Errorf("api versions: broker %d: %w", node, network.ErrDisconnected)
	}
	return versions, nil
}

// target picks the node of the next attempt; ok is false when none is
// available yet (wait and ask again); an error ends the call.
type target func(now time.Time) (node int32, ok bool, err error)

// leastLoaded targets the network client's least loaded node.
func (c *Client) leastLoaded(now time.Time) (int32, bool, error) {
	node, ok := c.net.LeastLoadedNode(now)
	return node, ok, nil
}

// fixed targets node once the metadata knows it.
func (c *Client) fixed(node int32) target {
	return func(time.Time) (int32, bool, error) {
		cluster := c.md.Fetch()
		if _, ok := cluster.Node(node); ok {
			return node, true, nil
		}
		if cluster.IsBootstrap() {
			return node, false, nil // the brokers are not known yet
		}
		ids := make([]int32, 0, len(cluster.Nodes()))
		for _, n := range cluster.Nodes() {
			ids = append(ids, n.ID)
		}
		return node, false, fmt.Errorf("%w %d: the cluster's brokers are %v", ErrUnknownNode, node, ids)
	}
}
