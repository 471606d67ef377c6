package networktest

import (
	"slices"
	"time"

	"github.com/kproduce/kproduce/pkg/network"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// The methods below play the network's part; events for a closed
// connection are dropped, as a real selector never reports them.

// CompleteConnect reports conn as connected.
func (m *MockSelector) CompleteConnect(conn network.ConnID) {
	m.Inject(network.Event{Kind: network.EventConnected, Conn: conn})
}

// FailConnect reports that conn could not connect.
func (m *MockSelector) FailConnect(conn network.ConnID, err error) {
	m.Inject(network.Event{Kind: network.EventDisconnected, Conn: conn, Err: err})
}

// Disconnect reports that the peer closed conn or that it failed.
func (m *MockSelector) Disconnect(conn network.ConnID, err error) {
	m.Inject(network.Event{Kind: network.EventDisconnected, Conn: conn, Err: err})
}

// CompleteSend completes the oldest held send of conn; false when none is
// held.
func (m *MockSelector) CompleteSend(conn network.ConnID) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.pending[conn] == 0 || m.closed[conn] {
		return false
	}
	m.pending[conn]--
	m.events = append(m.events, network.Event{Kind: network.EventSendCompleted, Conn: conn})
	return true
}

// PendingSends is the number of held sends of conn.
func (m *MockSelector) PendingSends(conn network.ConnID) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.pending[conn]
}

// Respond queues a response frame on conn: a response header with
// correlationID, then resp encoded at version, as a broker answers a
// request of key at version.
func (m *MockSelector) Respond(conn network.ConnID, correlationID int32, key protocol.APIKey, version int16, resp protocol.Response) {
	m.Receive(conn, EncodeResponse(correlationID, key, version, resp))
}

// RespondTo answers a sent request with resp, at the request's version.
func (m *MockSelector) RespondTo(s SentRequest, resp protocol.Response) {
	m.Respond(s.Conn, s.Header.CorrelationID, s.Header.APIKey, s.Header.APIVersion, resp)
}

// Receive queues a raw response payload (without size prefix) on conn.
func (m *MockSelector) Receive(conn network.ConnID, payload []byte) {
	m.Inject(network.Event{Kind: network.EventReceived, Conn: conn, Payload: payload})
}

// Inject queues any event, unless its connection is closed.
func (m *MockSelector) Inject(ev network.Event) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed[ev.Conn] {
		return
	}
	m.events = append(m.events, ev)
}

// EncodeResponse encodes a response frame payload: the response header
// for key at version, then the body.
func EncodeResponse(correlationID int32, key protocol.APIKey, version int16, resp protocol.Response) []byte {
	w := protocol.NewWriter(nil)
	h := protocol.ResponseHeader{CorrelationID: correlationID}
	h.Encode(w, protocol.ResponseHeaderVersion(key, version))
	resp.Encode(w, version)
	return w.Encoded()
}

// Connects returns the Connect calls, oldest first.
func (m *MockSelector) Connects() []ConnectCall {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.connects)
}

// ConnectCount is the number of Connect calls for node.
func (m *MockSelector) ConnectCount(node int32) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, c := range m.connects {
		if c.Node.ID == node {
			n++
		}
	}
	return n
}

// LastConn is the newest connection opened to node.
func (m *MockSelector) LastConn(node int32) (network.ConnID, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := len(m.connects) - 1; i >= 0; i-- {
		if m.connects[i].Node.ID == node {
			return m.connects[i].Conn, true
		}
	}
	return 0, false
}

// Sent returns the requests sent to node, oldest first.
func (m *MockSelector) Sent(node int32) []SentRequest {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []SentRequest
	for _, s := range m.sent {
		if s.Node == node {
			out = append(out, s)
		}
	}
	return out
}

// SentKey returns the requests of key sent to node, oldest first.
func (m *MockSelector) SentKey(node int32, key protocol.APIKey) []SentRequest {
	return slices.DeleteFunc(m.Sent(node), func(s SentRequest) bool { return s.Header.APIKey != key })
}

// AllSent returns every request sent, oldest first.
func (m *MockSelector) AllSent() []SentRequest {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.sent)
}

// LastSent is the newest request sent to node.
func (m *MockSelector) LastSent(node int32) (SentRequest, bool) {
	s := m.Sent(node)
	if len(s) == 0 {
		return SentRequest{}, false
	}
	return s[len(s)-1], true
}

// IsClosed reports whether conn was closed (by Close or CloseAll).
func (m *MockSelector) IsClosed(conn network.ConnID) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.closed[conn]
}

// CloseCalls returns the connections passed to Close, in order.
func (m *MockSelector) CloseCalls() []network.ConnID {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.closeCalls)
}

// ClosedAll reports whether CloseAll was called.
func (m *MockSelector) ClosedAll() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.closedAll
}

// Wakeups is the number of Wakeup calls.
func (m *MockSelector) Wakeups() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.wakeups
}

// PollTimeouts returns the timeouts passed to Poll, in order.
func (m *MockSelector) PollTimeouts() []time.Duration {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.polls)
}

// QueuedEvents is the number of events waiting for the next Poll.
func (m *MockSelector) QueuedEvents() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.events)
}
