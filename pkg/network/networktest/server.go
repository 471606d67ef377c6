package networktest

import (
	"net"
	"sync"
)

// Server is a TCP server on loopback for tests of real sockets: it runs a
// handler on each accepted connection, in its own goroutine. Close stops
// accepting, closes every connection and waits for the handlers.
type Server struct {
	ln     net.Listener // immutable
	handle func(net.Conn)

	wg    sync.WaitGroup
	mu    sync.Mutex // guards conns
	conns []net.Conn
}

// NewServer starts a server on 127.0.0.1 with a free port. A connection
// stays open after handle returns, until the peer or Close closes it.
func NewServer(handle func(net.Conn)) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{ln: ln, handle: handle}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// accept serves every connection until the listener closes.
func (s *Server) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		s.conns = append(s.conns, c)
		s.mu.Unlock()
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.handle(c)
		}()
	}
}

// Addr is the server's host:port.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Port is the server's port.
func (s *Server) Port() int32 { return int32(s.ln.Addr().(*net.TCPAddr).Port) }

// Close stops accepting, closes every connection and waits for the
// handlers to return.
func (s *Server) Close() {
	_ = s.ln.Close()
	s.mu.Lock()
	for _, c := range s.conns {
		_ = c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}
