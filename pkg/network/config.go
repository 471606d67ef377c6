package network

import (
	"cmp"
	"log/slog"
	"math/rand/v2"
	"time"
)

// Config configures a Client. Zero fields take the Java producer's
// defaults.
type Config struct {
	// ClientID is sent in every request header (client.id, default
	// "kproduce").
	ClientID string
	// SoftwareName and SoftwareVersion are sent in ApiVersions v3+
	// (KIP-511); brokers accept [a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?
	// (defaults "kproduce" and "unknown").
	SoftwareName, SoftwareVersion string
	// MaxInFlightPerConnection is max.in.flight.requests.per.connection
	// (default 5).
	MaxInFlightPerConnection int
	// RequestTimeout is request.timeout.ms (default 30s): the default
	// timeout of a request, and the timeout of the Client's own requests.
	RequestTimeout time.Duration
	// ReconnectBackoff is reconnect.backoff.ms (default 50ms).
	ReconnectBackoff time.Duration
	// ReconnectBackoffMax is reconnect.backoff.max.ms (default 1s).
	ReconnectBackoffMax time.Duration
	// ConnectionSetupTimeout is socket.connection.setup.timeout.ms
	// (default 10s).
	ConnectionSetupTimeout time.Duration
	// ConnectionSetupTimeoutMax is socket.connection.setup.timeout.max.ms
	// (default 30s).
	ConnectionSetupTimeoutMax time.Duration
	// Jitter returns the factor applied to each backoff and setup timeout,
	// in [0.8, 1.2] (default: uniform, from a math/rand/v2 source of the
	// Client).
	Jitter func() float64
	// ReauthJitter returns the share of a session's lifetime after which a
	// connection re-authenticates (KIP-368), in [0.85, 0.95] (default:
	// uniform, from the Client's source, as the Java client does).
	ReauthJitter func() float64
	// Rand returns a random int in [0, n); LeastLoadedNode starts its scan
	// at a random node so clients spread their load (default: a
	// math/rand/v2 source of the Client).
	Rand func(n int) int
	// BootstrapTimeout bounds the bootstrap: when no broker has answered
	// within it from the first Poll, the Client gives up (BootstrapError).
	// Zero means no bound; the Client still gives up at once when every
	// bootstrap address failed for good.
	BootstrapTimeout time.Duration
	// Notify, when set, is told about connection failures a person would
	// want to know of at once (see Notice). It runs on the goroutine that
	// drives the Client and must not block or call the Client.
	Notify func(Notice)
	// SASL is the mechanism to authenticate with, nil for none.
	SASL SASLMechanism
	// Logger receives debug and info logs (nil: none). Secrets never
	// reach it.
	Logger *slog.Logger
}

// Defaults of Config, as in the Java producer.
const (
	DefaultClientID                  = "kproduce"
	DefaultSoftwareName              = "kproduce"
	DefaultSoftwareVersion           = "unknown"
	DefaultMaxInFlightPerConnection  = 5
	DefaultRequestTimeout            = 30 * time.Second
	DefaultReconnectBackoff          = 50 * time.Millisecond
	DefaultReconnectBackoffMax       = time.Second
	DefaultConnectionSetupTimeout    = 10 * time.Second
	DefaultConnectionSetupTimeoutMax = 30 * time.Second
	// DefaultBootstrapTimeout is the bootstrap timeout of kproduce's
	// producer and subcommands (the Client itself has none by default).
	DefaultBootstrapTimeout = 10 * time.Second
)

// withDefaults fills the zero (or negative) fields.
func (cfg Config) withDefaults() Config {
	setDefault(&cfg.ClientID, DefaultClientID)
	setDefault(&cfg.SoftwareName, DefaultSoftwareName)
	setDefault(&cfg.SoftwareVersion, DefaultSoftwareVersion)
	setDefault(&cfg.MaxInFlightPerConnection, DefaultMaxInFlightPerConnection)
	setDefault(&cfg.RequestTimeout, DefaultRequestTimeout)
	setDefault(&cfg.ReconnectBackoff, DefaultReconnectBackoff)
	setDefault(&cfg.ReconnectBackoffMax, DefaultReconnectBackoffMax)
	setDefault(&cfg.ConnectionSetupTimeout, DefaultConnectionSetupTimeout)
	setDefault(&cfg.ConnectionSetupTimeoutMax, DefaultConnectionSetupTimeoutMax)
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Jitter == nil || cfg.Rand == nil || cfg.ReauthJitter == nil {
		r := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
		if cfg.Jitter == nil {
			cfg.Jitter = func() float64 { return 0.8 + 0.4*r.Float64() }
		}
		if cfg.ReauthJitter == nil {
			cfg.ReauthJitter = func() float64 { return 0.85 + 0.1*r.Float64() }
		}
		if cfg.Rand == nil {
			cfg.Rand = r.IntN
		}
	}
	return cfg
}

// setDefault sets *v to def when *v is zero or negative.
func setDefault[T cmp.Ordered](v *T, def T) {
	var zero T
	if *v <= zero {
		*v = def
	}
}
