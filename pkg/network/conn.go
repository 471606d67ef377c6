package network

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"sync"
	"time"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// receiveChunk is the allocation step for large responses: a payload is
// allocated as its bytes arrive, so a size prefix that lies costs no more
// memory than the bytes actually sent.
const receiveChunk = 1 << 20

// readBufferSize is the size of a connection's read buffer.
const readBufferSize = 64 << 10

// conn is one connection of a SocketSelector.
type conn struct {
	id   ConnID
	node Node
	sel  *SocketSelector

	ctx    context.Context // cancelled by stop: aborts dialing and TLS
	cancel context.CancelFunc
	wake   chan struct{} // a frame was queued
	stopCh chan struct{} // closed by stop
	closed chan struct{} // closed when the Client closes the connection
	wg     sync.WaitGroup

	mu      sync.Mutex // guards the fields below
	netConn net.Conn
	queue   [][][]byte // frames waiting for the writer
	stopped bool

	failOnce sync.Once

	postMu       sync.Mutex // serialises posting, so nothing follows EventDisconnected
	disconnected bool       // guarded by postMu
}

func newConn(id ConnID, node Node, sel *SocketSelector) *conn {
	ctx, cancel := context.WithCancel(context.Background())
	return &conn{
		id: id, node: node, sel: sel, ctx: ctx, cancel: cancel,
		wake:   make(chan struct{}, 1),
		stopCh: make(chan struct{}),
		closed: make(chan struct{}),
	}
}

// run dials, starts the writer and then reads responses until the
// connection ends.
func (c *conn) run(timeout time.Duration) {
	nc, err := c.dial(timeout)
	if err != nil {
		c.fail(err)
		return
	}
	c.mu.Lock()
	if c.stopped {
		c.mu.Unlock()
		nc.Close()
		return
	}
	c.netConn = nc
	c.mu.Unlock()
	c.sel.start(c, func() { c.writeLoop(nc) })
	if !c.post(Event{Kind: EventConnected, Conn: c.id}) {
		return
	}
	c.readLoop(nc)
}

// dial connects and, when configured, completes the TLS handshake, all
// within timeout.
func (c *conn) dial(timeout time.Duration) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(c.ctx, timeout)
	defer cancel()
	var d net.Dialer
	if c.sel.cfg.Dialer != nil {
		d = *c.sel.cfg.Dialer
	}
	d.Timeout = timeout
	nc, err := d.DialContext(ctx, "tcp", c.node.Addr())
	if err != nil {
		return nil, err
	}
	if tc, ok := nc.(*net.TCPConn); ok {
		if n := c.sel.cfg.SendBufferBytes; n > 0 {
			_ = tc.SetWriteBuffer(n) // best effort, as in Kafka
		}
		if n := c.sel.cfg.ReceiveBufferBytes; n > 0 {
			_ = tc.SetReadBuffer(n)
		}
	}
	if c.sel.cfg.TLS == nil {
		return nc, nil
	}
	return c.handshake(ctx, nc, timeout)
}

// handshake runs the TLS handshake over nc, within the connection setup
// (ctx) and a handshake timeout of its own (see tlsHandshakeTimeout).
func (c *conn) handshake(ctx context.Context, nc net.Conn, setupTimeout time.Duration) (net.Conn, error) {
	cfg := c.sel.cfg.TLS.Clone()
	if cfg.ServerName == "" {
		cfg.ServerName = c.node.Host
	}
	hsTimeout := tlsHandshakeTimeout(setupTimeout)
	hsCtx, cancel := context.WithTimeout(ctx, hsTimeout)
	defer cancel()
	tc := tls.Client(nc, cfg)
	if err := tc.HandshakeContext(hsCtx); err != nil {
		nc.Close()
		return nil, handshakeError(err, ctx, hsCtx, hsTimeout)
	}
	return tc, nil
}

// readLoop reads size-prefixed frames and posts them. A buffered reader
// saves a system call per response when responses arrive back to back.
func (c *conn) readLoop(nc net.Conn) {
	_, isTLS := nc.(*tls.Conn)
	br := bufio.NewReaderSize(nc, readBufferSize)
	var prefix [4]byte
	for received := false; ; received = true {
		if _, err := io.ReadFull(br, prefix[:]); err != nil {
			if !received {
				c.fail(firstReadError(err, isTLS))
				return
			}
			c.fail(readError(err, false))
			return
		}
		size, err := protocol.FrameSize(prefix, c.sel.cfg.MaxFrameSize)
		if err != nil {
			c.fail(err)
			return
		}
		payload, err := readPayload(br, int(size))
		if err != nil {
			c.fail(readError(err, true))
			return
		}
		if !c.post(Event{Kind: EventReceived, Conn: c.id, Payload: payload}) {
			return
		}
	}
}

// readPayload reads size bytes, growing the buffer as data arrives.
func readPayload(r io.Reader, size int) ([]byte, error) {
	buf := make([]byte, 0, min(size, receiveChunk))
	for len(buf) < size {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, min(size-len(buf), cap(buf)))
		}
		n, err := io.ReadFull(r, buf[len(buf):min(size, cap(buf))])
		buf = buf[:len(buf)+n]
		if err != nil {
			return nil, err
		}
	}
	return buf, nil
}

// readError describes a failed read.
func readError(err error, midFrame bool) error {
	switch {
	case midFrame && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)):
		return fmt.Errorf("connection closed by the broker in the middle of a response: %w", io.ErrUnexpectedEOF)
	case errors.Is(err, io.EOF):
		return fmt.Errorf("connection closed by the broker: %w", io.EOF)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("connection closed by the broker in the middle of a response size: %w", err)
	}
	return fmt.Errorf("read: %w", err)
}

// writeLoop writes the queued frames in order, one vectored write each.
func (c *conn) writeLoop(nc net.Conn) {
	_, isTLS := nc.(*tls.Conn)
	var vec [][]byte // the frame's slices, its memory kept from write to write
	var flat []byte
	for {
		select {
		case <-c.stopCh:
			return
		case <-c.wake:
		}
		for {
			frame, ok := c.dequeue()
			if !ok {
				break
			}
			var err error
			if isTLS {
				// tls.Conn writes each slice as its own record: join them.
				flat = flat[:0]
				for _, b := range frame {
					flat = append(flat, b...)
				}
				_, err = nc.Write(flat)
			} else {
				vec = append(vec[:0], frame...)
				bufs := net.Buffers(vec) // WriteTo consumes its receiver, not vec
				_, err = bufs.WriteTo(nc)
				clear(vec)
			}
			if err != nil {
				c.fail(fmt.Errorf("write: %w", err))
				return
			}
			if !c.post(Event{Kind: EventSendCompleted, Conn: c.id}) {
				return
			}
		}
	}
}

// enqueue adds a frame for the writer.
func (c *conn) enqueue(frame [][]byte) {
	c.mu.Lock()
	if c.stopped {
		c.mu.Unlock()
		return
	}
	c.queue = append(c.queue, frame)
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

func (c *conn) dequeue() ([][]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.queue) == 0 || c.stopped {
		return nil, false
	}
	frame := c.queue[0]
	c.queue[0] = nil
	c.queue = c.queue[1:]
	return frame, true
}

// fail ends the connection on its first error and reports it.
func (c *conn) fail(err error) {
	c.failOnce.Do(func() {
		c.stop()
		c.post(Event{Kind: EventDisconnected, Conn: c.id, Err: err})
	})
}

// post hands ev to Poll unless the connection already reported its end;
// false when the event was dropped.
func (c *conn) post(ev Event) bool {
	c.postMu.Lock()
	defer c.postMu.Unlock()
	if c.disconnected {
		return false
	}
	c.disconnected = ev.Kind == EventDisconnected
	return c.sel.post(c, ev)
}

// stop ends the connection's I/O: it aborts dialing, closes the socket and
// releases the writer.
func (c *conn) stop() {
	c.mu.Lock()
	if c.stopped {
		c.mu.Unlock()
		return
	}
	c.stopped = true
	nc := c.netConn
	c.queue = nil
	c.mu.Unlock()
	close(c.stopCh)
	c.cancel()
	if nc != nil {
		nc.Close()
	}
}

// closeByClient closes the connection for the Client and waits for its
// goroutines, which no longer post events.
func (c *conn) closeByClient() {
	close(c.closed)
	c.stop()
	c.wg.Wait()
}
