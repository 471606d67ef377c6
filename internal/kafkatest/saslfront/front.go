package saslfront

import (
	"errors"
	"net"
	"slices"
	"sync"
	"time"
)

// Mechanism is a server-side SASL mechanism.
type Mechanism interface {
	// Name is the mechanism's name as the client sends it in SaslHandshake.
	Name() string
	// Start begins one authentication of the connection described by info.
	Start(info ConnInfo) Exchange
}

// Exchange is one authentication under way.
type Exchange interface {
	// Step takes the client's next message and returns the answer. done
	// means the client is authenticated once the answer is sent; an error
	// fails the authentication with SASL_AUTHENTICATION_FAILED and the
	// error's text as the message.
	Step(clientMsg []byte) (serverMsg []byte, done bool, err error)
}

// Principal is implemented by an Exchange that knows who authenticated; a
// re-authentication must authenticate the same principal.
type Principal interface {
	Principal() string
}

// Expirer is implemented by an Exchange whose credential expires (a
// token): the session ends no later than Expiry.
type Expirer interface {
	Expiry() time.Time
}

// ConnInfo describes the connection an authentication is for.
type ConnInfo struct {
	// ID numbers the connections of a Front from 1.
	ID int
	// Local is the address the client connected to, Remote the client's.
	Local, Remote net.Addr
	// Reauthentication is set when the connection is already
	// authenticated (KIP-368).
	Reauthentication bool
	// Now is the front's time at the SaslHandshake.
	Now time.Time
}

// LocalHost is the host part of Local: the host name the client
// dialed, as a broker sees it.
func (i ConnInfo) LocalHost() string {
	host, _, err := net.SplitHostPort(i.Local.String())
	if err != nil {
		return i.Local.String()
	}
	return host
}

// Config configures a Front.
type Config struct {
	// Mechanisms are the mechanisms enabled, in the order SaslHandshake
	// errors list them.
	Mechanisms []Mechanism
	// SessionLifetime is connections.max.reauth.ms: 0 means sessions last
	// as long as their credential (Expirer), or forever.
	SessionLifetime time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time
	// MaxFrameBytes bounds a request (default 100 MiB).
	MaxFrameBytes int
}

// ConnStats is what happened on one connection.
type ConnStats struct {
	ID     int
	Remote string
	// Mechanism is the mechanism of the last handshake; Principal the
	// identity authenticated.
	Mechanism, Principal string
	// Authentications counts successful first authentications (0 or 1),
	// Reauthentications the successful ones on an authenticated
	// connection, Failures the failed exchanges.
	Authentications, Reauthentications, Failures int
	// Requests counts the requests passed to the cluster.
	Requests int
	// Expired is set when the front closed the connection because a
	// request came after the session ended.
	Expired bool
	// Violation, when not empty, says why the front closed the connection
	// for a protocol violation.
	Violation string
	// Closed is set once the connection ended (either side).
	Closed bool
	// Opened and Ended are when the connection was accepted and ended
	// (zero while open), on the front's clock.
	Opened, Ended time.Time
	// LastError is the last authentication failure's message.
	LastError string
}

// Front authenticates the connections of a cluster's listeners. Its
// methods are safe for concurrent use.
type Front struct {
	cfg Config

	mu        sync.Mutex // guards the fields below
	conns     []*conn
	listeners []net.Listener
	closed    bool
}

// New returns a Front; pass its Listen method to kfake.ListenFn.
func New(cfg Config) *Front {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.MaxFrameBytes <= 0 {
		cfg.MaxFrameBytes = 100 << 20
	}
	return &Front{cfg: cfg}
}

// Listen listens on address and returns a listener whose connections are
// authenticated by the front: the cluster reads and writes, on each
// connection it accepts, only what the front passes through.
func (f *Front) Listen(network, address string) (net.Listener, error) {
	ln, err := net.Listen(network, address)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		ln.Close()
		return nil, errors.New("saslfront: closed")
	}
	f.listeners = append(f.listeners, ln)
	return &listener{Listener: ln, f: f}, nil
}

// Connections returns the statistics of every connection so far, oldest
// first.
func (f *Front) Connections() []ConnStats {
	f.mu.Lock()
	conns := slices.Clone(f.conns)
	f.mu.Unlock()
	out := make([]ConnStats, 0, len(conns))
	for _, c := range conns {
		out = append(out, c.snapshot())
	}
	return out
}

// Close closes the listeners and every connection.
func (f *Front) Close() {
	f.mu.Lock()
	f.closed = true
	lns, conns := f.listeners, slices.Clone(f.conns)
	f.listeners = nil
	f.mu.Unlock()
	for _, ln := range lns {
		ln.Close()
	}
	for _, c := range conns {
		c.close()
	}
}

// listener hands the cluster one end of a pipe per accepted connection;
// the front serves the client on the other.
type listener struct {
	net.Listener
	f *Front
}

// Accept waits for a client and returns the cluster's side of it.
func (l *listener) Accept() (net.Conn, error) {
	client, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	clusterSide, frontSide := net.Pipe()
	l.f.mu.Lock()
	if l.f.closed {
		l.f.mu.Unlock()
		client.Close()
		clusterSide.Close()
		frontSide.Close()
		return nil, net.ErrClosed
	}
	c := newConn(l.f, len(l.f.conns)+1, client, frontSide)
	l.f.conns = append(l.f.conns, c)
	l.f.mu.Unlock()
	go c.serve()
	return &pipeConn{Conn: clusterSide, local: client.LocalAddr(), remote: client.RemoteAddr()}, nil
}

// pipeConn is the cluster's side of a connection, with the client's
// addresses.
type pipeConn struct {
	net.Conn
	local, remote net.Addr
}

func (p *pipeConn) LocalAddr() net.Addr  { return p.local }
func (p *pipeConn) RemoteAddr() net.Addr { return p.remote }

// mechanism returns the enabled mechanism called name.
func (f *Front) mechanism(name string) (Mechanism, bool) {
	for _, m := range f.cfg.Mechanisms {
		if m.Name() == name {
			return m, true
		}
	}
	return nil, false
}

// mechanismNames lists the enabled mechanisms.
func (f *Front) mechanismNames() []string {
	names := make([]string, 0, len(f.cfg.Mechanisms))
	for _, m := range f.cfg.Mechanisms {
		names = append(names, m.Name())
	}
	return names
}
