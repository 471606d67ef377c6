package protocol

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/kproduce/kproduce/internal/kafkatest"
)

// These tests prove the record batch encoding against franz-go's consumer,
// its producer and a kfake broker.

// TestRecordBatchReadByFranzGoParser hands batches of ours to franz-go's
// fetch parser (no broker) and compares what it returns.
func TestRecordBatchReadByFranzGoParser(t *testing.T) {
	for _, c := range czCodecs {
		t.Run(c.String(), func(t *testing.T) {
			in := rbBatch(c, rbRecords())
			in.BaseOffset = 1000
			fp, _ := kgo.ProcessFetchPartition(kgo.ProcessFetchPartitionOpts{Topic: "t", Offset: 0},
				&kmsg.FetchResponseTopicPartition{HighWatermark: 1 << 40, LastStableOffset: 1 << 40, RecordBatches: rbEncode(t, in)},
				kgo.DefaultDecompressor(), nil)
			require.NoError(t, fp.Err)
			rbAssertSameAsKgo(t, in, fp.Records)
		})
	}
}

// rbAssertSameAsKgo compares franz-go's view of records with the batch they
// were produced in, byte for byte, null for null.
func rbAssertSameAsKgo(t *testing.T, want *RecordBatch, got []*kgo.Record) {
	t.Helper()
	require.Len(t, got, len(want.Records))
	base := got[0].Offset - int64(want.Records[0].OffsetDelta)
	for i, r := range got {
		w := want.Records[i]
		assert.Equal(t, base+int64(w.OffsetDelta), r.Offset, "offset of record %d", i)
		assert.Equal(t, w.Key, r.Key, "key of record %d", i)
		assert.Equal(t, w.Key == nil, r.Key == nil, "null key of record %d", i)
		assert.Equal(t, w.Value, r.Value, "value of record %d", i)
		assert.Equal(t, w.Value == nil, r.Value == nil, "null value of record %d", i)
		assert.Equal(t, want.BaseTimestamp+w.TimestampDelta, r.Timestamp.UnixMilli(), "timestamp of record %d", i)
		assert.Equal(t, want.ProducerID, r.ProducerID)
		assert.Equal(t, want.ProducerEpoch, r.ProducerEpoch)
		require.Len(t, r.Headers, len(w.Headers), "headers of record %d", i)
		for j, h := range w.Headers {
			assert.Equal(t, h.Key, r.Headers[j].Key)
			assert.Equal(t, h.Value, r.Headers[j].Value)
			assert.Equal(t, h.Value == nil, r.Headers[j].Value == nil, "null header value %d of record %d", j, i)
		}
	}
}

// rbCluster starts a one-broker kfake cluster with the given topics, and a
// client for raw requests pinned to versions that name topics (Fetch v12).
func rbCluster(t *testing.T, topics ...string) (*kfake.Cluster, *kgo.Client) {
	t.Helper()
	c := kafkatest.NewCluster(t, kfake.NumBrokers(1), kfake.SeedTopics(1, topics...))
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.MaxVersions(kversion.V3_0_0()))
	require.NoError(t, err)
	t.Cleanup(cl.Close)
	return c, cl
}

// rbProduceRaw sends one batch of ours in a raw ProduceRequest.
func rbProduceRaw(t *testing.T, cl *kgo.Client, topic string, batch []byte) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p, err := kafkatest.ProduceRaw(ctx, cl, topic, batch)
	require.NoError(t, err)
	require.Zero(t, p.ErrorCode, "produce answered %v", ErrorForCode(p.ErrorCode))
	return p.BaseOffset
}

// rbConsume reads n records of partition 0 of topic from the start with a kgo
// consumer.
func rbConsume(t *testing.T, c *kfake.Cluster, topic string, n int) []*kgo.Record {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := kafkatest.Consume(ctx, n, kgo.SeedBrokers(c.ListenAddrs()...), kafkatest.FromStart(topic, 0),
		kgo.FetchMaxWait(50*time.Millisecond))
	require.NoError(t, err)
	return out
}

// rbFetchRaw returns the record batches of partition 0 of topic as stored by
// the broker.
func rbFetchRaw(t *testing.T, cl *kgo.Client, topic string) []byte {
	t.Helper()
	req := kmsg.NewPtrFetchRequest()
	req.MaxWaitMillis = 10
	req.MaxBytes = 50 << 20
	ft := kmsg.NewFetchRequestTopic()
	ft.Topic = topic
	fp := kmsg.NewFetchRequestTopicPartition()
	fp.PartitionMaxBytes = 50 << 20
	ft.Partitions = append(ft.Partitions, fp)
	req.Topics = append(req.Topics, ft)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := req.RequestWith(ctx, cl)
	require.NoError(t, err)
	require.Len(t, resp.Topics, 1)
	require.Len(t, resp.Topics[0].Partitions, 1)
	p := resp.Topics[0].Partitions[0]
	require.Zero(t, p.ErrorCode)
	return p.RecordBatches
}

// TestRecordBatchThroughKfake produces batches of ours with every codec to a
// broker and reads them back with franz-go's consumer: kfake checks the
// header and CRC but never inflates records, so only the consumer proves
// the encoding.
func TestRecordBatchThroughKfake(t *testing.T) {
	topics := make([]string, len(czCodecs))
	for i, c := range czCodecs {
		topics[i] = "batches-" + c.String()
	}
	cluster, raw := rbCluster(t, topics...)
	for i, codec := range czCodecs {
		t.Run(codec.String(), func(t *testing.T) {
			topic := topics[i]
			first := rbBatch(codec, rbRecords())
			second := rbBatch(codec, rbRecords()[:3])
			second.ProducerID, second.ProducerEpoch, second.BaseSequence = 4000, 2, 0
			second.BaseTimestamp -= 10_000 // timestamps before the first batch's

			base := rbProduceRaw(t, raw, topic, rbEncode(t, first))
			require.Zero(t, base)
			base = rbProduceRaw(t, raw, topic, rbEncode(t, second))
			require.Equal(t, int64(len(first.Records)), base)

			got := rbConsume(t, cluster, topic, len(first.Records)+len(second.Records))
			rbAssertSameAsKgo(t, first, got[:len(first.Records)])
			rbAssertSameAsKgo(t, second, got[len(first.Records):])
			assert.Equal(t, base, got[len(first.Records)].Offset)

			// The broker's stored batches decode with ours, producer state
			// included.
			stored := rbFetchRaw(t, raw, topic)
			b1, stored, err := DecodeRecordBatch(stored, 1<<20)
			require.NoError(t, err)
			b2, stored, err := DecodeRecordBatch(stored, 1<<20)
			require.NoError(t, err)
			assert.Empty(t, stored)
			assert.Equal(t, first.Records, b1.Records)
			assert.Equal(t, second.Records, b2.Records)
			assert.Equal(t, int64(4000), b2.ProducerID)
			assert.Equal(t, int16(2), b2.ProducerEpoch)
			assert.Equal(t, int32(0), b2.BaseSequence)
			assert.Equal(t, base, b2.BaseOffset)
		})
	}
}

// TestDecodeBatchesProducedByFranzGo lets franz-go's producer build and
// compress batches, fetches them raw from the broker and decodes them with
// ours.
func TestDecodeBatchesProducedByFranzGo(t *testing.T) {
	for _, codec := range czCodecs {
		t.Run(codec.String(), func(t *testing.T) {
			topic := "kgo-" + codec.String()
			cluster, raw := rbCluster(t, topic)
			prod, err := kgo.NewClient(kgo.SeedBrokers(cluster.ListenAddrs()...),
				kgo.DefaultProduceTopic(topic), kgo.ProducerBatchCompression(czKgoCodec(codec)),
				kgo.ProducerLinger(time.Minute), kgo.RecordPartitioner(kgo.ManualPartitioner()))
			require.NoError(t, err)
			defer prod.Close()

			want := rbRecords()
			ts := time.UnixMilli(rbBaseTimestamp)
			for i := range want {
				r := &kgo.Record{Key: want[i].Key, Value: want[i].Value, Timestamp: ts.Add(time.Duration(want[i].TimestampDelta) * time.Millisecond)}
				for _, h := range want[i].Headers {
					r.Headers = append(r.Headers, kgo.RecordHeader{Key: h.Key, Value: h.Value})
				}
				prod.Produce(context.Background(), r, nil)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			require.NoError(t, prod.Flush(ctx))

			stored := rbFetchRaw(t, raw, topic)
			var got []Record
			var first *RecordBatch
			for len(stored) > 0 {
				b, rest, err := DecodeRecordBatch(stored, 1<<20)
				require.NoError(t, err)
				if first == nil {
					first = b
				}
				// franz-go sends a batch uncompressed when compressing would not
				// make it smaller, which depends on how it cut the batches.
				assert.Contains(t, []Codec{codec, CodecNone}, b.Codec())
				got = append(got, b.Records...)
				stored = rest
			}
			require.Len(t, got, len(want))
			for i := range want {
				assert.Equal(t, want[i].Key, got[i].Key, "key %d", i)
				assert.Equal(t, want[i].Key == nil, got[i].Key == nil, "null key %d", i)
				assert.Equal(t, want[i].Value, got[i].Value, "value %d", i)
				assert.Equal(t, want[i].Value == nil, got[i].Value == nil, "null value %d", i)
				assert.Equal(t, want[i].Headers, got[i].Headers, "headers %d", i)
			}
			// franz-go's first record sets the base timestamp.
			assert.Equal(t, rbBaseTimestamp, first.BaseTimestamp+first.Records[0].TimestampDelta)
		})
	}
}
