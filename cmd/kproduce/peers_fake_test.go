package main

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/network/networktest"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// peerHandler answers one request of a fakePeer connection. It returns
// false to close the connection.
type peerHandler func(c *peerConn, h *protocol.RequestHeader, req protocol.Request) bool

// fakePeer is a tiny Kafka peer on loopback: per connection it reads
// size-prefixed request frames, decodes them with protocol.DecodeRequest
// and lets its handler answer. Tests use it to misbehave in ways kfake
// cannot (wrong correlation ids, broken frames, impossible metadata).
type fakePeer struct {
	*networktest.Server
	handle peerHandler

	mu   sync.Mutex        // guards reqs
	reqs []protocol.APIKey // the keys of every request decoded, in order
}

// newFakePeer starts a peer whose connections are served by handle; it is
// closed when the test ends.
func newFakePeer(t testing.TB, handle peerHandler) *fakePeer {
	t.Helper()
	p := &fakePeer{handle: handle}
	// A connection may arrive before NewServer returns (a client of an
	// earlier test retrying a port the system handed out again): it waits
	// until p is complete.
	ready := make(chan struct{})
	srv, err := networktest.NewServer(func(nc net.Conn) {
		defer nc.Close()
		<-ready
		p.serve(&peerConn{Conn: nc})
	})
	require.NoError(t, err)
	p.Server = srv
	close(ready)
	t.Cleanup(srv.Close)
	return p
}

// serve reads and answers the requests of one connection.
func (p *fakePeer) serve(c *peerConn) {
	for {
		payload, err := readRequestFrame(c)
		if err != nil {
			return
		}
		h, req, err := protocol.DecodeRequest(payload, networktest.NewRequest)
		if err != nil {
			return // not a request kproduce sends: a bug the test sees as a closed connection
		}
		p.mu.Lock()
		p.reqs = append(p.reqs, h.APIKey)
		p.mu.Unlock()
		if !p.handle(c, h, req) {
			return
		}
	}
}

// readRequestFrame reads one size-prefixed frame and returns its payload.
func readRequestFrame(r io.Reader) ([]byte, error) {
	var size [4]byte
	if _, err := io.ReadFull(r, size[:]); err != nil {
		return nil, err
	}
	n := int32(binary.BigEndian.Uint32(size[:]))
	if n < 0 || n > 64<<20 {
		return nil, errors.New("bad request frame size")
	}
	payload := make([]byte, n)
	_, err := io.ReadFull(r, payload)
	return payload, err
}

// addr is the peer's host:port.
func (p *fakePeer) addr() string { return p.Addr() }

// port is the peer's port.
func (p *fakePeer) port() int32 { return p.Port() }

// requests returns the keys of the requests decoded so far.
func (p *fakePeer) requests() []protocol.APIKey {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]protocol.APIKey(nil), p.reqs...)
}

// count returns how many requests of key were decoded.
func (p *fakePeer) count(key protocol.APIKey) int {
	n := 0
	for _, k := range p.requests() {
		if k == key {
			n++
		}
	}
	return n
}

// peerConn is one connection of a fakePeer.
type peerConn struct {
	net.Conn
}

// respondAs writes resp as the answer to the request with header h, at the
// request's version, with correlation id corr.
func (c *peerConn) respondAs(h *protocol.RequestHeader, corr int32, resp protocol.Response) bool {
	w := protocol.NewWriter(nil)
	w.Int32(0) // size, back-filled
	hdr := protocol.ResponseHeader{CorrelationID: corr}
	hdr.Encode(w, protocol.ResponseHeaderVersion(h.APIKey, h.APIVersion))
	resp.Encode(w, h.APIVersion)
	w.PutInt32At(0, int32(w.Len()-4))
	_, err := c.Write(w.Encoded())
	return err == nil
}

// respond answers the request with header h with resp.
func (c *peerConn) respond(h *protocol.RequestHeader, resp protocol.Response) bool {
	return c.respondAs(h, h.CorrelationID, resp)
}

// writeRaw writes b as it is; it returns false when the write failed.
func (c *peerConn) writeRaw(b []byte) bool {
	_, err := c.Write(b)
	return err == nil
}

// peerAPIVersions is what the fake peer claims to serve: the client's own
// ranges for the APIs a plaintext producer uses.
func peerAPIVersions() *protocol.ApiVersionsResponse {
	resp := &protocol.ApiVersionsResponse{}
	for _, k := range []protocol.APIKey{protocol.KeyProduce, protocol.KeyMetadata, protocol.KeyApiVersions, protocol.KeyInitProducerId} {
		v, _ := protocol.ClientVersions(k)
		resp.ApiKeys = append(resp.ApiKeys, protocol.ApiVersionsResponseKey{ApiKey: int16(k), MinVersion: v.Min, MaxVersion: v.Max})
	}
	return resp
}

// peerMetadata describes a one-broker cluster (node 1 at the peer's own
// address) whose every requested topic has partitions led by leader.
func peerMetadata(p *fakePeer, req *protocol.MetadataRequest, partitions int, leader int32) *protocol.MetadataResponse {
	host := "127.0.0.1"
	resp := &protocol.MetadataResponse{
		Brokers:      []protocol.MetadataResponseBroker{{NodeID: 1, Host: host, Port: p.port()}},
		ControllerID: 1,
	}
	for _, rt := range req.Topics {
		topic := protocol.MetadataResponseTopic{Name: rt.Name, TopicAuthorizedOperations: protocol.AuthorizedOperationsOmitted}
		for i := range partitions {
			topic.Partitions = append(topic.Partitions, protocol.MetadataResponsePartition{
				PartitionIndex: int32(i), LeaderID: leader, LeaderEpoch: 0,
				ReplicaNodes: []int32{leader}, IsrNodes: []int32{leader},
			})
		}
		resp.Topics = append(resp.Topics, topic)
	}
	resp.ClusterAuthorizedOperations = protocol.AuthorizedOperationsOmitted
	return resp
}

// frameOf returns a raw frame: the size prefix then payload.
func frameOf(size int32, payload []byte) []byte {
	return append(binary.BigEndian.AppendUint32(nil, uint32(size)), payload...)
}

// rawServer accepts connections on loopback and runs handle on each, for
// peers that do not speak Kafka at all.
type rawServer struct{ *networktest.Server }

// newRawServer starts a raw server; it is closed when the test ends. Each
// connection is closed when handle returns.
func newRawServer(t testing.TB, handle func(net.Conn)) *rawServer {
	t.Helper()
	srv, err := networktest.NewServer(func(c net.Conn) {
		defer c.Close()
		handle(c)
	})
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	return &rawServer{srv}
}

// addr is the server's host:port.
func (s *rawServer) addr() string { return s.Addr() }

// peerAnswers are the answers of a one-broker cluster peer. A nil field
// takes the default: peerAPIVersions, six partitions led by the peer, and
// closing the connection on Produce. intercept, when set, sees every
// request first and answers it when handled is true.
type peerAnswers struct {
	versions  func() *protocol.ApiVersionsResponse
	metadata  func(p *fakePeer, req *protocol.MetadataRequest) *protocol.MetadataResponse
	produce   func(req *protocol.ProduceRequest) protocol.Response
	intercept func(c *peerConn, h *protocol.RequestHeader, req protocol.Request) (keep, handled bool)
}

// newClusterPeer starts a one-broker cluster peer with answers a.
func newClusterPeer(t *testing.T, a peerAnswers) *fakePeer {
	t.Helper()
	if a.versions == nil {
		a.versions = peerAPIVersions
	}
	if a.metadata == nil {
		a.metadata = func(p *fakePeer, req *protocol.MetadataRequest) *protocol.MetadataResponse {
			return peerMetadata(p, req, 6, 1)
		}
	}
	var p *fakePeer
	p = newFakePeer(t, func(c *peerConn, h *protocol.RequestHeader, req protocol.Request) bool {
		if a.intercept != nil {
			if keep, handled := a.intercept(c, h, req); handled {
				return keep
			}
		}
		switch r := req.(type) {
		case *protocol.ApiVersionsRequest:
			return c.respond(h, a.versions())
		case *protocol.MetadataRequest:
			return c.respond(h, a.metadata(p, r))
		case *protocol.InitProducerIdRequest:
			return c.respond(h, &protocol.InitProducerIdResponse{ProducerID: 7, ProducerEpoch: 0})
		case *protocol.ProduceRequest:
			if a.produce != nil {
				return c.respond(h, a.produce(r))
			}
		}
		return false
	})
	return p
}
