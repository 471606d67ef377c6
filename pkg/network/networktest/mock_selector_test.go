package networktest_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kproduce/kproduce/pkg/network"
	"github.com/kproduce/kproduce/pkg/network/networktest"
	"github.com/kproduce/kproduce/pkg/protocol"
)

func TestManualClock(t *testing.T) {
	start := time.Unix(100, 0)
	c := networktest.NewManualClock(start)
	assert.Equal(t, start, c.Now())
	assert.Equal(t, start.Add(time.Second), c.Advance(time.Second))
	assert.Equal(t, start.Add(time.Second), c.Now())
	c.Set(start)
	assert.Equal(t, start, c.Now())
}

// frameOf encodes a request frame as the Client does.
func frameOf(t *testing.T, key protocol.APIKey, version int16, corr int32, body protocol.Request) [][]byte {
	t.Helper()
	w := protocol.NewWriter(nil)
	id := "client"
	protocol.AppendRequestFrame(w, &protocol.RequestHeader{APIKey: key, APIVersion: version, CorrelationID: corr, ClientID: &id}, body)
	return w.Buffers(nil)
}

func TestMockSelectorRecordsAndDecodesSends(t *testing.T) {
	m := networktest.NewMockSelector()
	node := network.Node{ID: 4, Host: "h", Port: 1}
	m.Connect(9, node, time.Second)
	assert.Equal(t, []networktest.ConnectCall{{Conn: 9, Node: node, Timeout: time.Second}}, m.Connects())
	assert.Equal(t, 1, m.ConnectCount(4))
	conn, ok := m.LastConn(4)
	require.True(t, ok)
	assert.Equal(t, network.ConnID(9), conn)
	assert.Empty(t, m.Poll(0, nil), "connections stay pending by default")

	topic := "t"
	body := &protocol.MetadataRequest{Topics: []protocol.MetadataRequestTopic{{Name: &topic}}, AllowAutoTopicCreation: true}
	m.Send(9, frameOf(t, protocol.KeyMetadata, 12, 77, body))
	sent := m.Sent(4)
	require.Len(t, sent, 1)
	require.NoError(t, sent[0].Err)
	assert.Equal(t, int32(4), sent[0].Node)
	assert.Equal(t, int32(77), sent[0].Header.CorrelationID)
	assert.Equal(t, body, sent[0].Body)

	// kmsg reads the same frame: an independent check of the copy.
	var k kmsg.MetadataRequest
	k.SetVersion(12)
	payload := sent[0].Frame[4:]
	// Skip the v2 request header: key, version, correlation, client id, tags.
	hdr := 2 + 2 + 4 + 2 + len("client") + 1
	require.NoError(t, k.ReadFrom(payload[hdr:]))
	require.Len(t, k.Topics, 1)
	assert.Equal(t, "t", *k.Topics[0].Topic)
	assert.True(t, k.AllowAutoTopicCreation)

	assert.Len(t, m.SentKey(4, protocol.KeyMetadata), 1)
	assert.Empty(t, m.SentKey(4, protocol.KeyProduce))
	assert.Len(t, m.AllSent(), 1)
	events := m.Poll(5*time.Millisecond, nil)
	assert.Equal(t, []network.Event{{Kind: network.EventSendCompleted, Conn: 9}}, events)
	assert.Equal(t, []time.Duration{0, 5 * time.Millisecond}, m.PollTimeouts())

	m.Send(9, [][]byte{{0, 0, 0, 9, 1}})
	bad, _ := m.LastSent(4)
	assert.Error(t, bad.Err, "a frame whose size prefix lies")
}

func TestMockSelectorRespondEncodesLikeABroker(t *testing.T) {
	m := networktest.NewMockSelector()
	m.Connect(1, network.Node{ID: 1}, time.Second)
	resp := &protocol.ApiVersionsResponse{ApiKeys: []protocol.ApiVersionsResponseKey{{ApiKey: 0, MinVersion: 3, MaxVersion: 9}}}
	m.Respond(1, 55, protocol.KeyApiVersions, 3, resp)
	events := m.Poll(0, nil)
	require.Len(t, events, 1)
	assert.Equal(t, network.EventReceived, events[0].Kind)

	// kmsg decodes the payload: header v0 (ApiVersions), then the body.
	var k kmsg.ApiVersionsResponse
	k.SetVersion(3)
	p := events[0].Payload
	require.Equal(t, []byte{0, 0, 0, 55}, p[:4])
	require.NoError(t, k.ReadFrom(p[4:]))
	require.Len(t, k.ApiKeys, 1)
	assert.Equal(t, int16(9), k.ApiKeys[0].MaxVersion)
}

func TestMockSelectorControls(t *testing.T) {
	m := networktest.NewMockSelector()
	m.Connect(1, network.Node{ID: 1}, time.Second)
	m.HoldSends(true)
	m.Send(1, frameOf(t, protocol.KeyApiVersions, 3, 1, &protocol.ApiVersionsRequest{ClientSoftwareName: "a", ClientSoftwareVersion: "b"}))
	assert.Equal(t, 1, m.PendingSends(1))
	assert.Empty(t, m.Poll(0, nil))
	assert.True(t, m.CompleteSend(1))
	assert.False(t, m.CompleteSend(1))

	m.CompleteConnect(1)
	m.Receive(1, []byte{1})
	assert.Equal(t, 3, m.QueuedEvents())
	m.Close(1)
	assert.Equal(t, 0, m.QueuedEvents(), "Close drops the connection's events")
	assert.True(t, m.IsClosed(1))
	assert.Equal(t, []network.ConnID{1}, m.CloseCalls())
	m.Disconnect(1, errors.New("late"))
	m.FailConnect(1, errors.New("late"))
	assert.Empty(t, m.Poll(0, nil), "no event after Close")

	m.Wakeup()
	assert.Equal(t, 1, m.Wakeups())
	m.Connect(2, network.Node{ID: 2}, time.Second)
	m.CloseAll()
	assert.True(t, m.ClosedAll())
	assert.True(t, m.IsClosed(2))
}

func TestMockSelectorAutoReady(t *testing.T) {
	m := networktest.NewMockSelector()
	m.AutoReady(nil)
	md := network.NewMetadata(network.MetadataConfig{}, []network.Node{{ID: -1, Host: "h", Port: 1}})
	clock := networktest.NewManualClock(time.Unix(1, 0))
	c := network.NewClient(network.Config{}, md, m, clock)
	defer c.Close()
	brokers := &protocol.MetadataResponse{Brokers: []protocol.MetadataResponseBroker{{NodeID: 1, Host: "h", Port: 1}}}
	m.AutoRespond(protocol.KeyMetadata, func(networktest.SentRequest) protocol.Response { return brokers })
	for i := 0; i < 10 && md.Fetch().IsBootstrap(); i++ {
		require.Empty(t, c.Poll(0, clock.Now()))
	}
	require.False(t, md.Fetch().IsBootstrap(), "AutoReady and AutoRespond bootstrap the client alone")
	m.AutoRespond(protocol.KeyMetadata, nil)
	for i := 0; i < 10 && !c.Ready(1, clock.Now()); i++ {
		c.Poll(0, clock.Now())
	}
	assert.True(t, c.IsReady(1, clock.Now()))
	for _, k := range networktest.DefaultApiVersions().ApiKeys {
		v, ok := protocol.ClientVersions(protocol.APIKey(k.ApiKey))
		require.True(t, ok)
		assert.Equal(t, protocol.VersionRange{Min: k.MinVersion, Max: k.MaxVersion}, v)
	}
}
