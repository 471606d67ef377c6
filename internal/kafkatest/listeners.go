package kafkatest

import (
	"fmt"
	"net"
	"strconv"
	"sync"
)

// Listeners is a kfake ListenFn (kfake.ListenFn(l.Listen)) that knows
// which broker each listener serves and the connections each accepted, so
// that a test can take a broker down as a crash does: kfake's RemoveNode
// alone keeps the connections open. kfake creates the listeners of its
// brokers in node order, from 0.
type Listeners struct {
	// Wrap, when set before the cluster starts, wraps each connection a
	// broker accepts (to watch or rewrite what it reads and writes).
	Wrap func(node int32, c net.Conn) net.Conn

	mu     sync.Mutex // guards the fields below
	byNode map[int32]*nodeListener
	next   int32 // node of the next listener kfake asks for
}

// Listen is the ListenFn: a listener for the next broker.
func (l *Listeners) Listen(network, addr string) (net.Listener, error) {
	ln, err := net.Listen(network, addr)
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.byNode == nil {
		l.byNode = make(map[int32]*nodeListener)
	}
	nl := &nodeListener{Listener: ln, node: l.next, wrap: l.Wrap}
	l.byNode[l.next] = nl
	l.next++
	return nl, nil
}

// NextNode says that the next listener kfake asks for serves node: a
// broker brought back with AddNode.
func (l *Listeners) NextNode(node int32) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.next = node
}

// listener returns node's listener.
func (l *Listeners) listener(node int32) (*nodeListener, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	nl := l.byNode[node]
	if nl == nil {
		return nil, fmt.Errorf("no broker %d", node)
	}
	return nl, nil
}

// Port is the port node listens on.
func (l *Listeners) Port(node int32) (int, error) {
	nl, err := l.listener(node)
	if err != nil {
		return 0, err
	}
	_, p, err := net.SplitHostPort(nl.Addr().String())
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(p)
}

// CloseConns closes every connection node accepted so far.
func (l *Listeners) CloseConns(node int32) error {
	nl, err := l.listener(node)
	if err != nil {
		return err
	}
	nl.closeConns()
	return nil
}

// Down closes node's listener and its connections, leaving the broker in
// the cluster's metadata: a broker that died without the cluster noticing.
func (l *Listeners) Down(node int32) error {
	nl, err := l.listener(node)
	if err != nil {
		return err
	}
	err = nl.Listener.Close()
	nl.closeConns()
	return err
}

// nodeListener is one broker's listener; it remembers the connections it
// accepted.
type nodeListener struct {
	net.Listener
	node int32
	wrap func(int32, net.Conn) net.Conn

	mu    sync.Mutex // guards conns
	conns []net.Conn
}

// Accept wraps and tracks the next connection.
func (l *nodeListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	if l.wrap != nil {
		c = l.wrap(l.node, c)
	}
	l.mu.Lock()
	l.conns = append(l.conns, c)
	l.mu.Unlock()
	return c, nil
}

// closeConns closes every connection accepted so far.
func (l *nodeListener) closeConns() {
	l.mu.Lock()
	conns := l.conns
	l.conns = nil
	l.mu.Unlock()
	for _, c := range conns {
		_ = c.Close()
	}
}
