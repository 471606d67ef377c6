package accumulator

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/kproduce/kproduce/internal/kafkatest"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// TestBatchesReadBackFromKfake sends the accumulator's encoded batches to
// kfake in raw Produce requests and reads the records back with kgo: kfake
// checks the CRC and framing, kgo decompresses and parses the records.
func TestBatchesReadBackFromKfake(t *testing.T) {
	cluster := kafkatest.NewCluster(t, kfake.NumBrokers(1), kfake.SeedTopics(1, "t"))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// Produce v13 names topics by id; stay at v9 (flexible, by name).
	client, err := kgo.NewClient(kgo.SeedBrokers(cluster.ListenAddrs()...), kgo.MaxVersions(kversion.V3_6_0()))
	require.NoError(t, err)
	t.Cleanup(client.Close)

	in := mixedRecords()
	var want []recorded
	for _, codec := range codecs {
		cfg := testConfig()
		cfg.BatchSize = 64 << 10
		cfg.Codec = codec
		a, rec := newTestAccumulator(t, cfg)
		for i, r := range in {
			_, err := a.Append(ctx, TopicPartition{"t", 0}, Record{Timestamp: r.ts, Key: r.key, Value: r.value, Headers: r.headers, Ref: Position{Source: int32(codec), Record: int64(i)}}, nil, false, t0)
			require.NoError(t, err)
		}
		b := drainAll(a, newTestCluster(map[string]int{"t": 1}, 1), t0)[0]
		require.NoError(t, b.Close(protocol.NewCompressor()))

		p := produceRaw(ctx, t, client, "t", b.Encoded())
		require.True(t, b.Done(p.BaseOffset, p.LogAppendTime, nil))
		a.Deallocate(b)
		want = append(want, rec.all()...)
	}

	got := kafkatest.ConsumeAll(t, cluster.ListenAddrs(), "t", len(want)) // one partition
	require.Len(t, got, len(want))
	for i, r := range got {
		w := want[i]
		assert.Equal(t, w.Offset, r.Offset, "record %d", i)
		assert.Equal(t, w.Timestamp, r.Timestamp.UnixMilli(), "record %d", i)
		assert.Equal(t, w.Key, r.Key, "record %d", i)
		assert.Equal(t, w.Value == nil, r.Value == nil, "record %d null value", i)
		assert.Equal(t, string(w.Value), string(r.Value), "record %d", i)
		assert.Equal(t, in[i%len(in)].key == nil, r.Key == nil, "record %d null key", i)
		var hdrs []protocol.Header
		for _, h := range r.Headers {
			hdrs = append(hdrs, protocol.Header{Key: h.Key, Value: h.Value})
		}
		assert.Equal(t, w.Headers, hdrs, "record %d", i)
		assert.Equal(t, int64(i), w.Offset, "offsets follow each other across batches")
	}
	assert.True(t, slices.IsSortedFunc(want, func(x, y recorded) int { return int(x.Offset - y.Offset) }))
}

// produceRaw sends one encoded batch to partition 0 of topic and returns
// the partition's answer, failing the test on any error.
func produceRaw(ctx context.Context, t *testing.T, client *kgo.Client, topic string, batch []byte) kmsg.ProduceResponseTopicPartition {
	t.Helper()
	p, err := kafkatest.ProduceRaw(ctx, client, topic, batch)
	require.NoError(t, err)
	require.NoError(t, protocol.ErrorForCode(p.ErrorCode))
	return p
}
