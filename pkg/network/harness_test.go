package network_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/network"
	"github.com/kproduce/kproduce/pkg/network/networktest"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// harness is a Client over a MockSelector and a ManualClock.
type harness struct {
	t     *testing.T
	clock *networktest.ManualClock
	sel   *networktest.MockSelector
	md    *network.Metadata
	c     *network.Client
}

// testNodes are the brokers of the test cluster.
func testNodes() []network.Node {
	return []network.Node{
		{ID: 1, Host: "127.0.0.1", Port: 9091},
		{ID: 2, Host: "127.0.0.1", Port: 9092},
		{ID: 3, Host: "127.0.0.1", Port: 9093},
	}
}

// fixedJitter makes backoffs exact.
func fixedJitter(f float64) func() float64 { return func() float64 { return f } }

// baseConfig is a Config with deterministic jitter and node choice.
func baseConfig() network.Config {
	return network.Config{
		Jitter: fixedJitter(1),
		Rand:   func(int) int { return 0 },
	}
}

// newHarness returns a client whose metadata already knows nodes (no
// metadata fetch is due), or bootstrap nodes when nodes have negative ids.
func newHarness(t *testing.T, cfg network.Config, nodes ...network.Node) *harness {
	t.Helper()
	clock := networktest.NewManualClock(time.Unix(1_000_000, 0))
	sel := networktest.NewMockSelector()
	mdCfg := network.MetadataConfig{Jitter: fixedJitter(1)}
	var md *network.Metadata
	if len(nodes) > 0 && nodes[0].ID < 0 {
		md = network.NewMetadata(mdCfg, nodes)
	} else {
		md = network.NewMetadata(mdCfg, nil)
		md.Update(metadataResponse(nodes, nil), clock.Now())
	}
	c := network.NewClient(cfg, md, sel, clock)
	t.Cleanup(c.Close)
	return &harness{t: t, clock: clock, sel: sel, md: md, c: c}
}

func (h *harness) now() time.Time { return h.clock.Now() }

func (h *harness) poll() []*network.ClientResponse { return h.c.Poll(0, h.now()) }

// advance moves the clock.
func (h *harness) advance(d time.Duration) { h.clock.Advance(d) }

// connect drives node to Ready with the given broker versions.
func (h *harness) connect(node int32, versions *protocol.ApiVersionsResponse) network.ConnID {
	h.t.Helper()
	require.False(h.t, h.c.Ready(node, h.now()))
	conn, ok := h.sel.LastConn(node)
	require.True(h.t, ok, "no connection started to node %d", node)
	h.sel.CompleteConnect(conn)
	require.Empty(h.t, h.poll())
	sent, ok := h.sel.LastSent(node)
	require.True(h.t, ok)
	require.Equal(h.t, protocol.KeyApiVersions, sent.Header.APIKey)
	if versions == nil {
		versions = networktest.DefaultApiVersions()
	}
	h.sel.RespondTo(sent, versions)
	require.Empty(h.t, h.poll())
	require.Equal(h.t, network.Ready, h.c.ConnectionState(node))
	return conn
}

// send sends body to node and returns the request.
func (h *harness) send(node int32, body protocol.Request, expectResponse bool, timeout time.Duration, attachment any) *network.ClientRequest {
	h.t.Helper()
	req := h.c.NewClientRequest(node, body, h.now(), expectResponse, timeout, attachment)
	require.NoError(h.t, h.c.Send(req, h.now()))
	return req
}

// metadataResponse lists brokers and topics (partition -> leader).
func metadataResponse(brokers []network.Node, topics map[string][]int32) *protocol.MetadataResponse {
	resp := &protocol.MetadataResponse{ControllerID: -1}
	cluster := "test-cluster"
	resp.ClusterID = &cluster
	for _, b := range brokers {
		resp.Brokers = append(resp.Brokers, protocol.MetadataResponseBroker{NodeID: b.ID, Host: b.Host, Port: b.Port, Rack: b.Rack})
	}
	for name, leaders := range topics {
		name := name
		t := protocol.MetadataResponseTopic{Name: &name}
		for p, leader := range leaders {
			t.Partitions = append(t.Partitions, protocol.MetadataResponsePartition{
				PartitionIndex: int32(p), LeaderID: leader, LeaderEpoch: 1,
				ReplicaNodes: []int32{leader}, IsrNodes: []int32{leader},
			})
		}
		resp.Topics = append(resp.Topics, t)
	}
	return resp
}

// produceRequest is a small acks=1 Produce request.
func produceRequest() *protocol.ProduceRequest {
	return &protocol.ProduceRequest{Acks: 1, TimeoutMs: 1000, Topics: []protocol.ProduceRequestTopic{{
		Name: "t", Partitions: []protocol.ProduceRequestPartition{{Index: 0, Records: []byte("not a real batch")}},
	}}}
}

// versionsWith is DefaultApiVersions with key's range replaced (or removed
// when max < 0).
func versionsWith(key protocol.APIKey, minV, maxV int16) *protocol.ApiVersionsResponse {
	resp := networktest.DefaultApiVersions()
	for i, k := range resp.ApiKeys {
		if k.ApiKey == int16(key) {
			if maxV < 0 {
				resp.ApiKeys = append(resp.ApiKeys[:i], resp.ApiKeys[i+1:]...)
			} else {
				resp.ApiKeys[i].MinVersion, resp.ApiKeys[i].MaxVersion = minV, maxV
			}
			return resp
		}
	}
	return resp
}
