package networktest

import (
	"encoding/binary"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/kproduce/kproduce/pkg/network"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// ConnectCall is one call of Selector.Connect.
type ConnectCall struct {
	Conn    network.ConnID
	Node    network.Node
	Timeout time.Duration
}

// SentRequest is one frame passed to Selector.Send, decoded.
type SentRequest struct {
	Conn network.ConnID
	// Node is the id of the node Conn was opened to.
	Node   int32
	Header protocol.RequestHeader
	// Body is the decoded request, nil when Err is set.
	Body protocol.Request
	// Frame is a copy of the whole frame, size prefix included.
	Frame []byte
	// Err is the decode error of a malformed frame.
	Err error
}

// Responder answers a request automatically; returning nil leaves the
// request unanswered. It runs inside Selector.Send, on the Client's
// goroutine, so it must not call the Client.
type Responder func(SentRequest) protocol.Response

// MockSelector is a network.Selector driven by the test. By default
// connections stay pending until CompleteConnect or FailConnect, and sends
// complete at once (see HoldSends).
type MockSelector struct {
	mu          sync.Mutex
	connects    []ConnectCall
	nodeOf      map[network.ConnID]int32
	closed      map[network.ConnID]bool
	closeCalls  []network.ConnID
	sent        []SentRequest
	pending     map[network.ConnID]int // sends not yet completed (HoldSends)
	events      []network.Event
	holdSends   bool
	autoConnect bool
	responders  map[protocol.APIKey]Responder
	wakeups     int
	polls       []time.Duration
	closedAll   bool
}

// NewMockSelector returns a MockSelector with no connection.
func NewMockSelector() *MockSelector {
	return &MockSelector{
		nodeOf:     make(map[network.ConnID]int32),
		closed:     make(map[network.ConnID]bool),
		pending:    make(map[network.ConnID]int),
		responders: make(map[protocol.APIKey]Responder),
	}
}

var _ network.Selector = (*MockSelector)(nil)

// Connect records the call; with AutoConnect the connection completes at
// once.
func (m *MockSelector) Connect(conn network.ConnID, node network.Node, timeout time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.connects = append(m.connects, ConnectCall{Conn: conn, Node: node, Timeout: timeout})
	m.nodeOf[conn] = node.ID
	if m.autoConnect {
		m.events = append(m.events, network.Event{Kind: network.EventConnected, Conn: conn})
	}
}

// Send decodes and records the frame, completes the send unless sends are
// held, and answers it when a Responder is set for its API.
func (m *MockSelector) Send(conn network.ConnID, frame [][]byte) {
	m.mu.Lock()
	if m.closed[conn] {
		m.mu.Unlock()
		return
	}
	s := m.decode(conn, frame)
	m.sent = append(m.sent, s)
	if m.holdSends {
		m.pending[conn]++
	} else {
		m.events = append(m.events, network.Event{Kind: network.EventSendCompleted, Conn: conn})
	}
	respond := m.responders[s.Header.APIKey]
	m.mu.Unlock()
	if respond == nil || s.Err != nil {
		return
	}
	if resp := respond(s); resp != nil {
		m.RespondTo(s, resp)
	}
}

// decode copies and decodes a frame.
func (m *MockSelector) decode(conn network.ConnID, frame [][]byte) SentRequest {
	s := SentRequest{Conn: conn, Node: m.nodeOf[conn]}
	for _, b := range frame {
		s.Frame = append(s.Frame, b...)
	}
	if len(s.Frame) < 4 || int(binary.BigEndian.Uint32(s.Frame)) != len(s.Frame)-4 {
		s.Err = fmt.Errorf("frame of %d bytes has a wrong size prefix", len(s.Frame))
		return s
	}
	h, body, err := protocol.DecodeRequest(s.Frame[4:], NewRequest)
	if h != nil {
		s.Header = *h
	}
	s.Body, s.Err = body, err
	return s
}

// NewRequest returns an empty request body for key, for
// protocol.DecodeRequest.
func NewRequest(key protocol.APIKey) (protocol.Request, bool) {
	switch key {
	case protocol.KeyProduce:
		return new(protocol.ProduceRequest), true
	case protocol.KeyMetadata:
		return new(protocol.MetadataRequest), true
	case protocol.KeySaslHandshake:
		return new(protocol.SaslHandshakeRequest), true
	case protocol.KeyApiVersions:
		return new(protocol.ApiVersionsRequest), true
	case protocol.KeyCreateTopics:
		return new(protocol.CreateTopicsRequest), true
	case protocol.KeyInitProducerId:
		return new(protocol.InitProducerIdRequest), true
	case protocol.KeySaslAuthenticate:
		return new(protocol.SaslAuthenticateRequest), true
	case protocol.KeyFindCoordinator:
		return new(protocol.FindCoordinatorRequest), true
	case protocol.KeyAddPartitionsToTxn:
		return new(protocol.AddPartitionsToTxnRequest), true
	case protocol.KeyEndTxn:
		return new(protocol.EndTxnRequest), true
	}
	return nil, false
}

// Close records the call and drops the connection's queued events: no
// event of conn is reported after Close.
func (m *MockSelector) Close(conn network.ConnID) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closeCalls = append(m.closeCalls, conn)
	m.closed[conn] = true
	delete(m.pending, conn)
	m.events = slices.DeleteFunc(m.events, func(ev network.Event) bool { return ev.Conn == conn })
}

// Poll records the timeout and returns the queued events without waiting.
func (m *MockSelector) Poll(timeout time.Duration, dst []network.Event) []network.Event {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.polls = append(m.polls, timeout)
	dst = append(dst, m.events...)
	clear(m.events)
	m.events = m.events[:0]
	return dst
}

// Wakeup counts the call.
func (m *MockSelector) Wakeup() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.wakeups++
}

// CloseAll closes every connection.
func (m *MockSelector) CloseAll() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closedAll = true
	for conn := range m.nodeOf {
		m.closed[conn] = true
	}
	m.events = m.events[:0]
}

// AutoConnect makes later connections complete at once when on.
func (m *MockSelector) AutoConnect(on bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.autoConnect = on
}

// AutoReady makes connections complete at once and answers every
// ApiVersions request with versions (DefaultApiVersions when nil), so that
// nodes become ready after one Poll (two with SASL or slow sends).
func (m *MockSelector) AutoReady(versions *protocol.ApiVersionsResponse) {
	if versions == nil {
		versions = DefaultApiVersions()
	}
	m.AutoConnect(true)
	m.AutoRespond(protocol.KeyApiVersions, func(SentRequest) protocol.Response { return versions })
}

// AutoRespond answers every later request of key with fn's response (nil
// fn: stop answering). The response is queued right after the send.
func (m *MockSelector) AutoRespond(key protocol.APIKey, fn Responder) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if fn == nil {
		delete(m.responders, key)
		return
	}
	m.responders[key] = fn
}

// HoldSends keeps later sends pending until CompleteSend when on;
// otherwise each send completes at once.
func (m *MockSelector) HoldSends(on bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.holdSends = on
}

// DefaultApiVersions is an ApiVersions response announcing exactly the
// version ranges kproduce speaks.
func DefaultApiVersions() *protocol.ApiVersionsResponse {
	resp := &protocol.ApiVersionsResponse{}
	for _, key := range []protocol.APIKey{
		protocol.KeyProduce, protocol.KeyMetadata, protocol.KeySaslHandshake, protocol.KeyApiVersions,
		protocol.KeyCreateTopics, protocol.KeyInitProducerId, protocol.KeySaslAuthenticate,
		protocol.KeyFindCoordinator, protocol.KeyAddPartitionsToTxn, protocol.KeyEndTxn,
		protocol.KeyFetch, protocol.KeyListOffsets,
	} {
		if v, ok := protocol.ClientVersions(key); ok {
			resp.ApiKeys = append(resp.ApiKeys, protocol.ApiVersionsResponseKey{ApiKey: int16(key), MinVersion: v.Min, MaxVersion: v.Max})
		}
	}
	return resp
}
