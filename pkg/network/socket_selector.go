package network

import (
	"crypto/tls"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// SocketConfig configures a SocketSelector.
type SocketConfig struct {
	// TLS, when not nil, wraps every connection in TLS. An empty
	// ServerName is set to the broker's host.
	TLS *tls.Config
	// MaxFrameSize is the largest response accepted (default
	// protocol.DefaultMaxFrameSize); a larger size prefix closes the
	// connection before anything is allocated.
	MaxFrameSize int32
	// Dialer dials the TCP connections (default: a zero net.Dialer). Its
	// Timeout is replaced by the connection setup timeout.
	Dialer *net.Dialer
	// SendBufferBytes and ReceiveBufferBytes set the socket buffers
	// (send.buffer.bytes, receive.buffer.bytes); 0 keeps the OS default.
	SendBufferBytes, ReceiveBufferBytes int
}

// eventQueueSize is the capacity of the event channel; connections block
// (backpressure) when Poll does not drain it.
const eventQueueSize = 1024

// SocketSelector is the Selector over real TCP (and TLS) sockets. Each
// connection runs a dial goroutine that becomes its reader, and a writer
// goroutine; they share nothing with the Client and post events to one
// channel that Poll drains.
type SocketSelector struct {
	cfg     SocketConfig
	events  chan Event
	wakeup  chan struct{}
	closing chan struct{} // closed by CloseAll
	closeMu sync.Once
	timer   *time.Timer // Poll's; Poll runs on one goroutine

	mu    sync.Mutex // guards conns
	conns map[ConnID]*conn

	wg         sync.WaitGroup // every goroutine of every connection
	goroutines atomic.Int64   // live goroutines, for leak checks
}

// NewSocketSelector returns a selector with no connection.
func NewSocketSelector(cfg SocketConfig) *SocketSelector {
	if cfg.MaxFrameSize <= 0 {
		cfg.MaxFrameSize = protocol.DefaultMaxFrameSize
	}
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &SocketSelector{
		cfg:     cfg,
		events:  make(chan Event, eventQueueSize),
		wakeup:  make(chan struct{}, 1),
		closing: make(chan struct{}),
		timer:   t,
		conns:   make(map[ConnID]*conn),
	}
}

// Connect starts dialing node; the result comes as an event.
func (s *SocketSelector) Connect(id ConnID, node Node, timeout time.Duration) {
	c := newConn(id, node, s)
	s.mu.Lock()
	select {
	case <-s.closing:
		s.mu.Unlock()
		return
	default:
	}
	s.conns[id] = c
	s.mu.Unlock()
	s.start(c, func() { c.run(timeout) })
}

// Send queues frame on connection id.
func (s *SocketSelector) Send(id ConnID, frame [][]byte) {
	if c := s.lookup(id); c != nil {
		c.enqueue(frame)
	}
}

// Close closes connection id and waits for its goroutines to finish, so
// that no event of id follows and its queued frames are no longer read.
func (s *SocketSelector) Close(id ConnID) {
	s.mu.Lock()
	c := s.conns[id]
	delete(s.conns, id)
	s.mu.Unlock()
	if c != nil {
		c.closeByClient()
	}
}

// CloseAll closes every connection and waits for all goroutines to exit.
// Later Connect calls are ignored.
func (s *SocketSelector) CloseAll() {
	s.closeMu.Do(func() { close(s.closing) })
	s.mu.Lock()
	conns := s.conns
	s.conns = make(map[ConnID]*conn)
	s.mu.Unlock()
	for _, c := range conns {
		c.closeByClient()
	}
	s.wg.Wait()
}

// Goroutines is the number of connection goroutines still running; 0
// after CloseAll returns.
func (s *SocketSelector) Goroutines() int { return int(s.goroutines.Load()) }

// Wakeup makes a blocked Poll, or the next one, return early.
func (s *SocketSelector) Wakeup() {
	select {
	case s.wakeup <- struct{}{}:
	default:
	}
}

// Poll waits up to timeout for an event and returns all available ones.
func (s *SocketSelector) Poll(timeout time.Duration, dst []Event) []Event {
	start := len(dst)
	dst = s.drain(dst)
	if len(dst) > start || timeout <= 0 {
		return dst
	}
	s.timer.Reset(timeout)
	defer s.timer.Stop()
	for len(dst) == start {
		select {
		case ev := <-s.events:
			dst = s.appendLive(dst, ev)
		case <-s.wakeup:
			return dst
		case <-s.timer.C:
			return dst
		}
	}
	return s.drain(dst)
}

// drain appends the queued events without waiting.
func (s *SocketSelector) drain(dst []Event) []Event {
	for {
		select {
		case ev := <-s.events:
			dst = s.appendLive(dst, ev)
		default:
			return dst
		}
	}
}

// appendLive appends ev unless its connection was closed.
func (s *SocketSelector) appendLive(dst []Event, ev Event) []Event {
	if s.lookup(ev.Conn) == nil {
		return dst
	}
	return append(dst, ev)
}

func (s *SocketSelector) lookup(id ConnID) *conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conns[id]
}

// start runs fn on a goroutine counted by the selector and by c.
func (s *SocketSelector) start(c *conn, fn func()) {
	s.wg.Add(1)
	c.wg.Add(1)
	s.goroutines.Add(1)
	go func() {
		defer s.wg.Done()
		defer c.wg.Done()
		defer s.goroutines.Add(-1)
		fn()
	}()
}

// post hands an event to Poll; false when the connection or the selector
// was closed meanwhile.
func (s *SocketSelector) post(c *conn, ev Event) bool {
	select {
	case s.events <- ev:
		return true
	case <-c.closed:
		return false
	case <-s.closing:
		return false
	}
}
