package network_test

import (
	"fmt"
	"maps"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/kproduce/kproduce/pkg/network"
	"github.com/kproduce/kproduce/pkg/protocol"

	"github.com/kproduce/kproduce/internal/kafkatest"
)

// This file runs the Client with the real SocketSelector against kfake on
// loopback. Waits are bounded by generous deadlines; nothing asserts how
// long an operation takes except that it ends.

const testDeadline = 15 * time.Second

func startCluster(t *testing.T, opts ...kfake.Opt) *kfake.Cluster {
	t.Helper()
	return kafkatest.NewCluster(t, append([]kfake.Opt{kfake.NumBrokers(3), kfake.SeedTopics(6, "t")}, opts...)...)
}

// realClient is a Client over a SocketSelector.
type realClient struct {
	t   *testing.T
	c   *network.Client
	md  *network.Metadata
	sel *network.SocketSelector
	// pending holds responses Poll returned while waiting for something
	// else; waitResponses hands them out first.
	pending []*network.ClientResponse
}

func newRealClient(t *testing.T, addrs []string, cfg network.Config, sock network.SocketConfig) *realClient {
	t.Helper()
	bootstrap, err := network.BootstrapNodes(addrs)
	require.NoError(t, err)
	md := network.NewMetadata(network.MetadataConfig{}, bootstrap)
	sel := network.NewSocketSelector(sock)
	if cfg.RequestTimeout == 0 {
		cfg.RequestTimeout = 10 * time.Second
	}
	c := network.NewClient(cfg, md, sel, network.SystemClock{})
	rc := &realClient{t: t, c: c, md: md, sel: sel}
	t.Cleanup(func() {
		c.Close()
		assert.Equal(t, 0, sel.Goroutines(), "every connection goroutine exits")
	})
	return rc
}

// pollUntil polls until cond holds, keeping the responses for
// waitResponses.
func (rc *realClient) pollUntil(what string, cond func() bool) {
	rc.t.Helper()
	deadline := time.Now().Add(testDeadline)
	for !cond() {
		require.True(rc.t, time.Now().Before(deadline), "timed out waiting for %s (metadata error: %v)", what, rc.md.LastError())
		rc.pending = append(rc.pending, rc.c.Poll(50*time.Millisecond, time.Now())...)
	}
}

// waitTopic waits until the metadata knows topic.
func (rc *realClient) waitTopic(topic string, partitions int) *network.Cluster {
	rc.t.Helper()
	rc.md.AddTopic(topic)
	rc.pollUntil("topic metadata", func() bool { return rc.md.Fetch().PartitionCount(topic) == partitions })
	return rc.md.Fetch()
}

// ready waits until node is ready.
// ready polls until node is ready and returns the instant it was: send
// at that instant, as the Sender does (a connection ready now may be due
// for re-authentication a moment later).
func (rc *realClient) ready(node int32) time.Time {
	rc.t.Helper()
	var now time.Time
	rc.pollUntil(fmt.Sprintf("node %d ready", node), func() bool {
		now = time.Now()
		return rc.c.Ready(node, now)
	})
	return now
}

// waitResponses polls until n responses arrived.
func (rc *realClient) waitResponses(n int) []*network.ClientResponse {
	rc.t.Helper()
	responses := rc.pending
	rc.pending = nil
	deadline := time.Now().Add(testDeadline)
	for len(responses) < n {
		require.True(rc.t, time.Now().Before(deadline), "timed out waiting for %d responses, got %d", n, len(responses))
		responses = append(responses, rc.c.Poll(50*time.Millisecond, time.Now())...)
	}
	require.Len(rc.t, responses, n)
	return responses
}

// sendAndWait sends body to node and waits for its response.
func (rc *realClient) sendAndWait(node int32, body protocol.Request, timeout time.Duration) *network.ClientResponse {
	rc.t.Helper()
	now := rc.ready(node)
	req := rc.c.NewClientRequest(node, body, now, true, timeout, nil)
	require.NoError(rc.t, rc.c.Send(req, now))
	resp := rc.waitResponses(1)[0]
	require.Same(rc.t, req, resp.Request)
	return resp
}

// testRecord is one record as produced and as expected back.
type testRecord struct {
	key, value []byte
	headers    []protocol.Header
}

func partitionRecords(p int32) []testRecord {
	return []testRecord{
		{key: []byte(fmt.Sprintf("key-%d", p)), value: []byte{0, 1, 2, 0xff, byte(p)},
			headers: []protocol.Header{{Key: "h1", Value: []byte("v1")}, {Key: "empty", Value: []byte{}}}},
		{key: nil, value: []byte(fmt.Sprintf("value %d with a null key", p))},
		{key: []byte("tombstone"), value: nil, headers: []protocol.Header{{Key: "null", Value: nil}}},
	}
}

// recordBatch encodes records as an uncompressed batch v2 without a
// producer id.
func recordBatch(records []testRecord, baseTimestamp int64) []byte {
	batch := make([]byte, protocol.RecordBatchHeaderSize)
	for i, r := range records {
		batch = protocol.AppendRecord(batch, int32(i), int64(i), r.key, r.value, r.headers)
	}
	protocol.PutBatchHeader(batch, &protocol.BatchHeader{
		PartitionLeaderEpoch: -1,
		LastOffsetDelta:      int32(len(records) - 1),
		BaseTimestamp:        baseTimestamp,
		MaxTimestamp:         baseTimestamp + int64(len(records)-1),
		ProducerID:           protocol.NoProducerID,
		ProducerEpoch:        -1,
		BaseSequence:         -1,
		RecordCount:          int32(len(records)),
	})
	return batch
}

// produceToLeaders sends one ProduceRequest per leader of topic's
// partitions and checks every partition is acknowledged at offset 0.
func (rc *realClient) produceToLeaders(cluster *network.Cluster, topic string, baseTimestamp int64) {
	rc.t.Helper()
	byLeader := map[int32]*protocol.ProduceRequest{}
	for p := range int32(cluster.PartitionCount(topic)) {
		leader, ok := cluster.LeaderFor(topic, p)
		require.True(rc.t, ok)
		req := byLeader[leader]
		if req == nil {
			req = &protocol.ProduceRequest{Acks: -1, TimeoutMs: 5000, Topics: []protocol.ProduceRequestTopic{{Name: topic}}}
			byLeader[leader] = req
		}
		req.Topics[0].Partitions = append(req.Topics[0].Partitions,
			protocol.ProduceRequestPartition{Index: p, Records: recordBatch(partitionRecords(p), baseTimestamp)})
	}
	acked := 0
	for leader, body := range byLeader {
		now := rc.ready(leader)
		req := rc.c.NewClientRequest(leader, body, now, true, 0, leader)
		require.NoError(rc.t, rc.c.Send(req, now))
	}
	for _, resp := range rc.waitResponses(len(byLeader)) {
		require.NoError(rc.t, resp.Err)
		body := resp.Body.(*protocol.ProduceResponse)
		for _, tr := range body.Topics {
			for _, pr := range tr.Partitions {
				require.Equal(rc.t, int16(0), pr.ErrorCode, "partition %d", pr.Index)
				assert.Equal(rc.t, int64(0), pr.BaseOffset)
				acked++
			}
		}
	}
	require.Equal(rc.t, cluster.PartitionCount(topic), acked)
}

// checkRecords compares what franz-go read with what was produced.
func checkRecords(t *testing.T, records []*kgo.Record, partitions int32, baseTimestamp int64) {
	t.Helper()
	seen := 0
	for _, r := range records {
		want := partitionRecords(r.Partition)
		require.Less(t, r.Offset, int64(len(want)))
		w := want[r.Offset]
		assert.Equal(t, w.key, r.Key, "partition %d offset %d key", r.Partition, r.Offset)
		assert.Equal(t, w.value, r.Value, "partition %d offset %d value", r.Partition, r.Offset)
		require.Len(t, r.Headers, len(w.headers))
		for i, h := range w.headers {
			assert.Equal(t, h.Key, r.Headers[i].Key)
			assert.Equal(t, h.Value, r.Headers[i].Value, "header %q", h.Key)
		}
		assert.Equal(t, baseTimestamp+r.Offset, r.Timestamp.UnixMilli())
		seen++
	}
	assert.Equal(t, int(partitions)*len(partitionRecords(0)), seen)
}

func TestIntegrationProduceAndReadBack(t *testing.T) {
	cluster := startCluster(t)
	addrs := cluster.ListenAddrs()
	rc := newRealClient(t, addrs, network.Config{}, network.SocketConfig{})
	md := rc.waitTopic("t", 6)

	require.False(t, md.IsBootstrap())
	require.Len(t, md.Nodes(), 3)
	for i, n := range md.Nodes() {
		_, port, _ := net.SplitHostPort(addrs[i])
		assert.Equal(t, port, strconv.Itoa(int(n.Port)), "node %d", n.ID)
	}
	for p := range int32(6) {
		leader, ok := md.LeaderFor("t", p)
		require.True(t, ok)
		assert.Equal(t, cluster.LeaderFor("t", p), leader)
	}

	base := time.Now().UnixMilli()
	rc.produceToLeaders(md, "t", base)
	checkRecords(t, kafkatest.ConsumeAll(t, addrs, "t", 18), 6, base)
}

func TestIntegrationOldBroker(t *testing.T) {
	// Kafka 2.3: ApiVersions up to v2 (our v3 gets the KIP-511 answer),
	// Produce up to v7, Metadata up to v8.
	cluster := startCluster(t, kfake.MaxVersions(kversion.V2_3_0()))
	var mu sync.Mutex
	versions := map[int16][]int16{}
	cluster.Control(func(req kmsg.Request) (kmsg.Response, error, bool) {
		cluster.KeepControl()
		mu.Lock()
		versions[req.Key()] = append(versions[req.Key()], req.GetVersion())
		mu.Unlock()
		return nil, nil, false
	})
	rc := newRealClient(t, cluster.ListenAddrs(), network.Config{}, network.SocketConfig{})
	md := rc.waitTopic("t", 6)
	base := time.Now().UnixMilli()
	rc.produceToLeaders(md, "t", base)
	mu.Lock()
	versions = maps.Clone(versions) // before franz-go talks to the cluster too
	mu.Unlock()
	checkRecords(t, kafkatest.ConsumeAll(t, cluster.ListenAddrs(), "t", 18), 6, base)

	require.NotEmpty(t, versions[int16(protocol.KeyApiVersions)])
	assert.Equal(t, int16(3), versions[int16(protocol.KeyApiVersions)][0], "first try at v3")
	assert.Contains(t, versions[int16(protocol.KeyApiVersions)], int16(2), "then at the broker's version")
	for _, v := range versions[int16(protocol.KeyProduce)] {
		assert.Equal(t, int16(7), v)
	}
	for _, v := range versions[int16(protocol.KeyMetadata)] {
		assert.Equal(t, int16(8), v)
	}
}
