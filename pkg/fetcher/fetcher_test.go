package fetcher_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/kproduce/kproduce/internal/kafkatest"
	"github.com/kproduce/kproduce/pkg/admin"
	"github.com/kproduce/kproduce/pkg/fetch"
	"github.com/kproduce/kproduce/pkg/fetcher"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// testDeadline bounds every call of a test.
const testDeadline = 30 * time.Second

// newFetcher is a Fetcher over a new admin client of cfg.
func newFetcher(t *testing.T, cfg admin.Config) *fetcher.Fetcher {
	t.Helper()
	c, err := admin.New(cfg)
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return fetcher.New(c)
}

func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	t.Cleanup(cancel)
	return ctx
}

// txnProducer is a kgo transactional producer to partition 0 of topic.
func txnProducer(t *testing.T, addrs []string, id, topic string, codec kgo.CompressionCodec) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addrs...), kgo.TransactionalID(id), kgo.DefaultProduceTopic(topic),
		kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ProducerBatchCompression(codec), kgo.ProducerLinger(0))
	require.NoError(t, err)
	t.Cleanup(cl.Close)
	return cl
}

// writeTransactions writes rounds of two interleaved transactions to
// partition 0 of topic, committing one and aborting the other in turn,
// and returns the values of the committed records in offset order.
func writeTransactions(t *testing.T, addrs []string, topic string, codec kgo.CompressionCodec, rounds int) []string {
	t.Helper()
	ctx := testContext(t)
	a := txnProducer(t, addrs, topic+"-a", topic, codec)
	b := txnProducer(t, addrs, topic+"-b", topic, codec)
	var committed []string
	for round := range rounds {
		require.NoError(t, a.BeginTransaction())
		require.NoError(t, b.BeginTransaction())
		var sent []string
		for i := range 6 {
			cl, name := a, "a"
			if i%2 == 1 {
				cl, name = b, "b"
			}
			var recs []*kgo.Record
			for j := range 1 + i {
				v := fmt.Sprintf("%s-%d-%d-%d", name, round, i, j)
				recs = append(recs, &kgo.Record{Value: []byte(v), Partition: 0})
				if (name == "a") == (round%2 == 0) {
					sent = append(sent, v)
				}
			}
			require.NoError(t, cl.ProduceSync(ctx, recs...).FirstErr())
		}
		commitA := round%2 == 0
		require.NoError(t, a.EndTransaction(ctx, kgo.TransactionEndTry(commitA)))
		require.NoError(t, b.EndTransaction(ctx, kgo.TransactionEndTry(!commitA)))
		committed = append(committed, sent...)
	}
	return committed
}

// readAll fetches partition 0 of topic from offset 0 up to end.
func readAll(t *testing.T, c *fetcher.Fetcher, topic string, isolation int8, maxBytes int32, end int64) []fetch.Record {
	t.Helper()
	ctx := testContext(t)
	var out []fetch.Record
	for offset := int64(0); offset < end; {
		p, err := c.Fetch(ctx, fetcher.Options{Topic: topic, Partition: 0, Offset: offset, Isolation: isolation,
			MaxBytes: maxBytes, MaxWait: 100 * time.Millisecond})
		require.NoError(t, err)
		require.Greater(t, p.NextOffset, offset, "progress")
		out = append(out, p.Records...)
		offset = p.NextOffset
	}
	return out
}

func values(recs []fetch.Record) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = string(r.Value)
	}
	return out
}

func TestFetchReadCommittedEveryCodec(t *testing.T) {
	codecs := map[string]kgo.CompressionCodec{"none": kgo.NoCompression(), "gzip": kgo.GzipCompression(),
		"snappy": kgo.SnappyCompression(), "lz4": kgo.Lz4Compression(), "zstd": kgo.ZstdCompression()}
	cluster := kafkatest.AdminCluster(t)
	c := newFetcher(t, admin.Config{Brokers: cluster.ListenAddrs()})
	for name, codec := range codecs {
		t.Run(name, func(t *testing.T) {
			topic := "txn-" + name
			createTopic(t, cluster, topic, 1)
			want := writeTransactions(t, cluster.ListenAddrs(), topic, codec, 4)
			ctx := testContext(t)
			end, err := c.ListOffsets(ctx, topic, []int32{0}, protocol.ListOffsetsLatest, protocol.IsolationReadCommitted)
			require.NoError(t, err)

			// Small fetches make the reads cross batches and transactions.
			for _, maxBytes := range []int32{1, 300, 1 << 20} {
				got := readAll(t, c, topic, protocol.IsolationReadCommitted, maxBytes, end[0])
				assert.Equal(t, want, values(got), "max bytes %d", maxBytes)
			}

			// franz-go's read_committed consumer agrees.
			recs, err := kafkatest.Consume(ctx, len(want), kgo.SeedBrokers(cluster.ListenAddrs()...),
				kafkatest.FromStart(topic, 0), kgo.FetchIsolationLevel(kgo.ReadCommitted()))
			require.NoError(t, err)
			var oracle []string
			for _, r := range recs {
				oracle = append(oracle, string(r.Value))
			}
			assert.Equal(t, oracle, want)

			all := readAll(t, c, topic, protocol.IsolationReadUncommitted, 1<<20, end[0])
			assert.Len(t, all, 2*len(want), "read_uncommitted sees the aborted records too")
		})
	}
}

// createTopic creates topic with kgo's admin request.
func createTopic(t *testing.T, cluster *kfake.Cluster, topic string, partitions int32) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(cluster.ListenAddrs()...))
	require.NoError(t, err)
	defer cl.Close()
	req := kmsg.NewPtrCreateTopicsRequest()
	rt := kmsg.NewCreateTopicsRequestTopic()
	rt.Topic, rt.NumPartitions, rt.ReplicationFactor = topic, partitions, 1
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(testContext(t), cl)
	require.NoError(t, err)
	require.Zero(t, resp.Topics[0].ErrorCode)
}

func TestListOffsets(t *testing.T) {
	cluster := kafkatest.AdminCluster(t)
	addrs := cluster.ListenAddrs()
	c := newFetcher(t, admin.Config{Brokers: addrs})
	ctx := testContext(t)
	// Two records to each of the six partitions of "t" (on three brokers),
	// then an open transaction on partition 0.
	cl, err := kgo.NewClient(kgo.SeedBrokers(addrs...), kgo.DefaultProduceTopic("t"), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	require.NoError(t, err)
	defer cl.Close()
	for p := range int32(6) {
		for range 2 {
			require.NoError(t, cl.ProduceSync(ctx, &kgo.Record{Partition: p, Value: []byte("v")}).FirstErr())
		}
	}
	open := txnProducer(t, addrs, "open", "t", kgo.NoCompression())
	require.NoError(t, open.BeginTransaction())
	require.NoError(t, open.ProduceSync(ctx, &kgo.Record{Partition: 0, Value: []byte("pending")}).FirstErr())

	all := []int32{0, 1, 2, 3, 4, 5}
	latest, err := c.ListOffsets(ctx, "t", all, protocol.ListOffsetsLatest, protocol.IsolationReadUncommitted)
	require.NoError(t, err)
	assert.Equal(t, map[int32]int64{0: 3, 1: 2, 2: 2, 3: 2, 4: 2, 5: 2}, latest)
	stable, err := c.ListOffsets(ctx, "t", all, protocol.ListOffsetsLatest, protocol.IsolationReadCommitted)
	require.NoError(t, err)
	assert.Equal(t, map[int32]int64{0: 2, 1: 2, 2: 2, 3: 2, 4: 2, 5: 2}, stable, "the open transaction holds partition 0 back")
	earliest, err := c.ListOffsets(ctx, "t", []int32{3}, protocol.ListOffsetsEarliest, protocol.IsolationReadCommitted)
	require.NoError(t, err)
	assert.Equal(t, map[int32]int64{3: 0}, earliest)

	_, err = c.ListOffsets(ctx, "t", []int32{6}, protocol.ListOffsetsLatest, 0)
	assert.ErrorContains(t, err, "topic t has no partition 6 (6 partitions)")
}

func TestFetchFollowsALeaderMove(t *testing.T) {
	cluster := kafkatest.AdminCluster(t)
	c := newFetcher(t, admin.Config{Brokers: cluster.ListenAddrs()})
	ctx := testContext(t)
	cl, err := kgo.NewClient(kgo.SeedBrokers(cluster.ListenAddrs()...), kgo.DefaultProduceTopic("u"), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	require.NoError(t, err)
	defer cl.Close()
	require.NoError(t, cl.ProduceSync(ctx, &kgo.Record{Partition: 1, Value: []byte("before")}).FirstErr())
	p, err := c.Fetch(ctx, fetcher.Options{Topic: "u", Partition: 1, Isolation: protocol.IsolationReadCommitted})
	require.NoError(t, err)
	require.Equal(t, []string{"before"}, values(p.Records))

	leader := cluster.LeaderFor("u", 1)
	next := (leader + 1) % 3
	require.NoError(t, cluster.MoveTopicPartition("u", 1, next))
	var mu sync.Mutex
	var asked []int32
	cluster.ControlKey(int16(protocol.KeyFetch), func(kmsg.Request) (kmsg.Response, error, bool) {
		mu.Lock()
		asked = append(asked, cluster.CurrentNode())
		mu.Unlock()
		cluster.KeepControl()
		return nil, nil, false
	})
	p, err = c.Fetch(ctx, fetcher.Options{Topic: "u", Partition: 1, Isolation: protocol.IsolationReadCommitted})
	require.NoError(t, err)
	assert.Equal(t, []string{"before"}, values(p.Records))
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []int32{leader, next}, asked, "the old leader said NOT_LEADER_OR_FOLLOWER, the metadata was refreshed")
}

func TestFetchPermanentAndLastingErrors(t *testing.T) {
	cluster := kafkatest.AdminCluster(t)
	c := newFetcher(t, admin.Config{Brokers: cluster.ListenAddrs()})
	_, err := c.Fetch(testContext(t), fetcher.Options{Topic: "t", Partition: 0, Offset: 5})
	assert.ErrorIs(t, err, protocol.ErrOffsetOutOfRange)
	assert.ErrorContains(t, err, "fetch t/0 at offset 5")

	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	_, err = c.Fetch(ctx, fetcher.Options{Topic: "missing", Partition: 0})
	t.Log(err)
	assert.ErrorIs(t, err, admin.ErrUnreachable)
	assert.ErrorIs(t, err, protocol.ErrUnknownTopicOrPartition, "the error says why it kept failing")
}

// TestReadSideVersions reads through brokers of several Kafka versions and
// checks the Fetch and ListOffsets versions negotiated.
func TestReadSideVersions(t *testing.T) {
	tests := []struct {
		name                string
		versions            *kversion.Versions
		fetchV, listOffsetV int16
	}{
		{"0.11", kversion.V0_11_0(), 5, 2},
		{"2.4", kversion.V2_4_0(), 11, 5},
		{"3.0 (Fetch by name)", kversion.V3_0_0(), 12, 7},
		{"latest", nil, 18, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := []kfake.Opt{kfake.NumBrokers(1), kfake.SeedTopics(1, "v")}
			if tt.versions != nil {
				opts = append(opts, kfake.MaxVersions(tt.versions))
			}
			cluster := kafkatest.NewCluster(t, opts...)
			used := map[int16]int16{}
			var mu sync.Mutex
			for _, key := range []protocol.APIKey{protocol.KeyFetch, protocol.KeyListOffsets} {
				cluster.ControlKey(int16(key), func(req kmsg.Request) (kmsg.Response, error, bool) {
					mu.Lock()
					used[req.Key()] = req.GetVersion()
					mu.Unlock()
					cluster.KeepControl()
					return nil, nil, false
				})
			}
			want := writeTransactions(t, cluster.ListenAddrs(), "v", kgo.Lz4Compression(), 2)
			c := newFetcher(t, admin.Config{Brokers: cluster.ListenAddrs()})
			end, err := c.ListOffsets(testContext(t), "v", []int32{0}, protocol.ListOffsetsLatest, protocol.IsolationReadCommitted)
			require.NoError(t, err)
			got := readAll(t, c, "v", protocol.IsolationReadCommitted, 1<<20, end[0])
			assert.Equal(t, want, values(got))
			mu.Lock()
			defer mu.Unlock()
			assert.Equal(t, tt.fetchV, used[int16(protocol.KeyFetch)], "Fetch version")
			assert.Equal(t, tt.listOffsetV, used[int16(protocol.KeyListOffsets)], "ListOffsets version")
		})
	}
}
