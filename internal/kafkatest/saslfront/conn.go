package saslfront

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// slot is one answer owed to the client, in request order: a frame the
// front wrote itself, or the cluster's next frame.
type slot struct {
	local       []byte // a whole frame, size prefix included
	fromCluster bool
	// patch amends the cluster's frame (without size prefix), when set.
	patch func(frame []byte) []byte
	// closeAfter closes the connection once this answer is written.
	closeAfter bool
}

// authState is where a connection is in its authentication.
type authState int8

const (
	stateNew            authState = iota // nothing yet
	stateAuthenticating                  // handshake done, exchange under way
	stateAuthenticated                   // exchange complete
)

// conn serves one client connection: its reader (serve) handles the
// requests in order, its writer returns the answers in the same order.
type conn struct {
	f       *Front
	id      int
	client  net.Conn
	cluster net.Conn // the front's side of the pipe to the cluster
	slots   chan slot
	owed    atomic.Int32 // cluster answers not yet written to the client
	once    sync.Once

	mu    sync.Mutex // guards stats
	stats ConnStats

	// The authentication state, owned by the reader.
	state      authState
	mechName   string
	ex         Exchange
	reauth     bool
	principal  string
	sessionEnd time.Time // zero: no lifetime
	raw        bool      // v0 handshake: the exchange is framed raw
}

func newConn(f *Front, id int, client, cluster net.Conn) *conn {
	return &conn{
		f: f, id: id, client: client, cluster: cluster,
		slots: make(chan slot, 128),
		stats: ConnStats{ID: id, Remote: client.RemoteAddr().String(), Opened: f.cfg.Now()},
	}
}

// serve runs the reader; the writer runs on a goroutine of its own.
func (c *conn) serve() {
	go c.write()
	defer close(c.slots)
	for {
		frame, err := readFrame(c.client, c.f.cfg.MaxFrameBytes)
		if err != nil {
			c.close()
			return
		}
		if !c.handle(frame) {
			return
		}
	}
}

// handle handles one request; false means the reader must stop.
func (c *conn) handle(frame []byte) bool {
	if c.raw {
		return c.handleRaw(frame)
	}
	h, err := parseHeader(frame)
	if err != nil {
		c.violation(fmt.Sprintf("malformed request header: %v", err))
		return false
	}
	switch h.key {
	case keyApiVersions:
		return c.forward(frame, h, patchApiVersions(h.version))
	case keySaslHandshake:
		return c.handshake(h)
	case keySaslAuthenticate:
		return c.authenticate(h)
	}
	switch {
	case c.state == stateNew:
		c.violation(fmt.Sprintf("request key %d before authentication", h.key))
		return false
	case c.state == stateAuthenticating:
		c.violation(fmt.Sprintf("request key %d in the middle of a SASL exchange", h.key))
		return false
	case c.expired():
		c.expire()
		return false
	}
	c.update(func(s *ConnStats) { s.Requests++ })
	return c.forward(frame, h, nil)
}

// forward passes a request to the cluster and, when it expects an
// answer, owes the client the cluster's next frame.
func (c *conn) forward(frame []byte, h header, patch func([]byte) []byte) bool {
	if h.expectsResponse() {
		c.owed.Add(1)
		c.slots <- slot{fromCluster: true, patch: patch}
	}
	if err := writeFrame(c.cluster, frame); err != nil {
		c.close()
		return false
	}
	return true
}

// answer owes the client a frame of the front's own.
func (c *conn) answer(frame []byte, closeAfter bool) bool {
	c.slots <- slot{local: frame, closeAfter: closeAfter}
	return !closeAfter
}

// expired reports whether the session has ended.
func (c *conn) expired() bool {
	return !c.sessionEnd.IsZero() && !c.f.cfg.Now().Before(c.sessionEnd)
}

// expire closes a connection whose session ended.
func (c *conn) expire() {
	c.update(func(s *ConnStats) { s.Expired = true })
	c.close()
}

// violation closes the connection for a protocol violation.
func (c *conn) violation(why string) {
	c.update(func(s *ConnStats) {
		if s.Violation == "" {
			s.Violation = why
		}
	})
	c.close()
}

// write returns the answers in order.
func (c *conn) write() {
	for s := range c.slots {
		frame := s.local
		if s.fromCluster {
			body, err := readFrame(c.cluster, 1<<30)
			c.owed.Add(-1)
			if err != nil {
				c.close()
				continue
			}
			if s.patch != nil {
				body = s.patch(body)
			}
			frame = sizePrefixed(body)
		}
		if err := writeAll(c.client, frame); err != nil || s.closeAfter {
			c.close()
		}
	}
}

// close ends the connection, both sides.
func (c *conn) close() {
	c.once.Do(func() {
		c.client.Close()
		c.cluster.Close()
		now := c.f.cfg.Now()
		c.update(func(s *ConnStats) { s.Closed, s.Ended = true, now })
	})
}

func (c *conn) update(fn func(*ConnStats)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	fn(&c.stats)
}

func (c *conn) snapshot() ConnStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats
}

// readFrame reads one size-prefixed frame and returns it without the
// prefix.
func readFrame(r io.Reader, limit int) ([]byte, error) {
	var size [4]byte
	if _, err := io.ReadFull(r, size[:]); err != nil {
		return nil, err
	}
	n := int(int32(binary.BigEndian.Uint32(size[:])))
	if n < 0 || n > limit {
		return nil, fmt.Errorf("frame of %d bytes", n)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, err
	}
	return body, nil
}

// writeFrame writes body with its size prefix.
func writeFrame(w io.Writer, body []byte) error { return writeAll(w, sizePrefixed(body)) }

func sizePrefixed(body []byte) []byte {
	out := make([]byte, 4, 4+len(body))
	binary.BigEndian.PutUint32(out, uint32(len(body)))
	return append(out, body...)
}

func writeAll(w io.Writer, b []byte) error {
	_, err := w.Write(b)
	return err
}
