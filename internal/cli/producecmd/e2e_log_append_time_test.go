package producecmd_test

import (
	"context"
	"encoding/binary"
	"hash/crc32"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kproduce/kproduce/internal/kafkatest"
)

// Offsets in a record batch v2 header.
const (
	batchCRCOffset   = 17 // after base offset, length, leader epoch, magic
	batchAttrsOffset = 21
	logAppendTimeBit = 0x08
)

// stampLogAppendTime makes c store every produced batch with the broker's
// LogAppendTime, as a broker does for a topic with
// message.timestamp.type=LogAppendTime (kfake only honours the batch's own
// attribute): it sets the attribute and fixes the CRC before the cluster
// handles the request.
func stampLogAppendTime(c *kfake.Cluster) {
	table := crc32.MakeTable(crc32.Castagnoli)
	c.ControlKey(int16(kmsg.Produce), func(req kmsg.Request) (kmsg.Response, error, bool) {
		for _, tp := range req.(*kmsg.ProduceRequest).Topics {
			for _, p := range tp.Partitions {
				b := p.Records
				if len(b) <= batchAttrsOffset+1 {
					continue
				}
				b[batchAttrsOffset+1] |= logAppendTimeBit
				binary.BigEndian.PutUint32(b[batchCRCOffset:], crc32.Checksum(b[batchAttrsOffset:], table))
			}
		}
		return nil, nil, false
	})
}

// TestE2EReportsBrokerLogAppendTime checks that the report timestamp is the
// one the broker stored (its LogAppendTime), not the record's CreateTime.
func TestE2EReportsBrokerLogAppendTime(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	stampLogAppendTime(c)
	in := `{"value":"old","timestamp":1000}
{"value":"older","timestamp":2000}
`
	res := produceTo(t, c, strings.NewReader(in), "-t", "t", "-p", "3", "-f", "json", "-o", "json")
	require.Equal(t, 0, res.Code, res.Stderr)
	batches := fetchBatches(t, c, "t", 3)
	reps := kafkatest.ParseJSONReports(t, res.Stdout)
	require.Len(t, reps, 2)
	for _, rep := range reps {
		var found bool
		for _, b := range batches {
			if rep.Offset < b.FirstOffset || rep.Offset > b.FirstOffset+int64(b.LastOffsetDelta) {
				continue
			}
			found = true
			require.NotZero(t, b.Attributes&logAppendTimeBit, "stored with LogAppendTime")
			assert.Greater(t, b.MaxTimestamp, int64(2000), "the broker's time, not the record's")
			assert.Equal(t, b.MaxTimestamp, rep.Timestamp, "report of record %d", rep.Record)
		}
		assert.True(t, found, "report %+v names no stored batch", rep)
	}
}

// fetchBatches reads the record batches stored in one partition with a raw
// FetchRequest to its leader. (kfake rewrites a LogAppendTime batch's
// timestamps without fixing its CRC, so kgo's consumer rejects it.)
func fetchBatches(t testing.TB, c *kfake.Cluster, topic string, partition int32) []kmsg.RecordBatch {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	require.NoError(t, err)
	defer cl.Close()
	req := kmsg.NewPtrFetchRequest()
	req.ReplicaID, req.MaxWaitMillis, req.MinBytes, req.MaxBytes = -1, 0, 1, 1<<20
	rt := kmsg.NewFetchRequestTopic()
	rt.Topic, rt.TopicID = topic, c.TopicInfo(topic).TopicID
	rp := kmsg.NewFetchRequestTopicPartition()
	rp.Partition, rp.PartitionMaxBytes = partition, 1<<20
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	kresp, err := cl.Broker(int(c.LeaderFor(topic, partition))).Request(ctx, req)
	require.NoError(t, err)
	resp := kresp.(*kmsg.FetchResponse)
	require.Len(t, resp.Topics, 1)
	require.Len(t, resp.Topics[0].Partitions, 1)
	p := resp.Topics[0].Partitions[0]
	require.Zero(t, p.ErrorCode)
	var out []kmsg.RecordBatch
	for raw := p.RecordBatches; len(raw) >= 12; {
		n := 12 + int(int32(binary.BigEndian.Uint32(raw[8:])))
		require.LessOrEqual(t, n, len(raw))
		var b kmsg.RecordBatch
		require.NoError(t, b.ReadFrom(raw[:n]))
		out = append(out, b)
		raw = raw[n:]
	}
	return out
}
