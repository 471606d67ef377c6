package protocol

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kproduce/kproduce/internal/kafkatest"
)

// readLog is what readKfake writes to partition 0 of "reads": a committed
// transaction (offsets 0-4, marker 5), an aborted one (6-8, marker 9),
// plain records (10-13) and an open transaction (14-15).
const (
	readHighWatermark = 16
	readStableOffset  = 14
	readAbortedFirst  = 6
)

// readKfake starts a broker holding readLog and returns its address and
// the producer id of the aborted transaction.
func readKfake(t *testing.T) (addr string, abortedPID int64) {
	t.Helper()
	c := kafkatest.NewCluster(t, kfake.NumBrokers(1), kfake.SeedTopics(1, "reads"))
	addr = c.ListenAddrs()[0]
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	txn := func(id string, n int, commit *bool) int64 {
		cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.TransactionalID(id), kgo.DefaultProduceTopic("reads"))
		require.NoError(t, err)
		require.NoError(t, cl.BeginTransaction())
		var pid int64
		for i := range n {
			r, err := cl.ProduceSync(ctx, &kgo.Record{Key: []byte(id), Value: fmt.Appendf(nil, "%s-%d", id, i)}).First()
			require.NoError(t, err)
			pid = r.ProducerID
		}
		if commit == nil {
			t.Cleanup(cl.Close) // left open
			return pid
		}
		require.NoError(t, cl.EndTransaction(ctx, kgo.TransactionEndTry(*commit)))
		cl.Close()
		return pid
	}
	commit, abort := true, false
	txn("committed", 5, &commit)
	abortedPID = txn("aborted", 3, &abort)
	plain, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.DefaultProduceTopic("reads"))
	require.NoError(t, err)
	for i := range 4 {
		require.NoError(t, plain.ProduceSync(ctx, &kgo.Record{Value: fmt.Appendf(nil, "plain-%d", i)}).FirstErr())
	}
	plain.Close()
	txn("open", 2, nil)
	return addr, abortedPID
}

func TestReadSideAgainstKfake(t *testing.T) {
	addr, abortedPID := readKfake(t)
	c := msgDial(t, addr)
	md := c.roundTrip(&MetadataRequest{Topics: []MetadataRequestTopic{{Name: msgPtr("reads")}}}, 12).(*MetadataResponse)
	require.Len(t, md.Topics, 1)
	topicID := md.Topics[0].TopicID
	require.NotEqual(t, [16]byte{}, topicID)

	for v := int16(1); v <= 10; v++ {
		t.Run(fmt.Sprintf("ListOffsets v%d", v), func(t *testing.T) {
			assert.Equal(t, int64(readHighWatermark), readListOffset(t, c, v, ListOffsetsLatest, IsolationReadUncommitted))
			assert.Equal(t, int64(0), readListOffset(t, c, v, ListOffsetsEarliest, IsolationReadUncommitted))
			if v >= 2 {
				assert.Equal(t, int64(readStableOffset), readListOffset(t, c, v, ListOffsetsLatest, IsolationReadCommitted))
			}
		})
	}
	for v := int16(4); v <= 18; v++ {
		t.Run(fmt.Sprintf("Fetch v%d", v), func(t *testing.T) {
			p := readFetch(t, c, v, topicID, IsolationReadCommitted, 0)
			assert.Equal(t, int64(readHighWatermark), p.HighWatermark)
			assert.Equal(t, int64(readStableOffset), p.LastStableOffset)
			if v >= 5 {
				assert.Equal(t, int64(0), p.LogStartOffset)
			}
			assert.Equal(t, []FetchResponseAbortedTransaction{{ProducerID: abortedPID, FirstOffset: readAbortedFirst}}, p.AbortedTransactions)
			offsets, markers := readBatches(t, p.Records)
			assert.Equal(t, []int64{0, 1, 2, 3, 4, 6, 7, 8, 10, 11, 12, 13}, offsets, "below the last stable offset only")
			assert.Equal(t, []int64{5, 9}, markers)

			all := readFetch(t, c, v, topicID, IsolationReadUncommitted, 7)
			assert.Nil(t, all.AbortedTransactions, "none under read_uncommitted")
			offsets, _ = readBatches(t, all.Records)
			assert.Equal(t, []int64{7, 8, 10, 11, 12, 13, 14, 15}, offsets, "from offset 7 (one record per batch) to the high watermark")
		})
	}
}

func readListOffset(t *testing.T, c *msgConn, v int16, ts int64, isolation int8) int64 {
	t.Helper()
	req := &ListOffsetsRequest{ReplicaID: ConsumerReplicaID, IsolationLevel: isolation, TimeoutMs: 1000,
		Topics: []ListOffsetsRequestTopic{{Name: "reads", Partitions: []ListOffsetsRequestPartition{{CurrentLeaderEpoch: -1, Timestamp: ts}}}}}
	resp := c.roundTrip(req, v).(*ListOffsetsResponse)
	require.Len(t, resp.Topics, 1)
	require.Len(t, resp.Topics[0].Partitions, 1)
	p := resp.Topics[0].Partitions[0]
	require.Zero(t, p.ErrorCode, "%v", ErrorForCode(p.ErrorCode))
	return p.Offset
}

func readFetch(t *testing.T, c *msgConn, v int16, topicID [16]byte, isolation int8, offset int64) FetchResponsePartition {
	t.Helper()
	req := &FetchRequest{ReplicaID: ConsumerReplicaID, MaxWaitMs: 10, MinBytes: 1, MaxBytes: 1 << 20, IsolationLevel: isolation,
		SessionEpoch: -1, Topics: []FetchRequestTopic{{Name: "reads", TopicID: topicID,
			Partitions: []FetchRequestPartition{{CurrentLeaderEpoch: -1, FetchOffset: offset, LastFetchedEpoch: -1, LogStartOffset: -1, PartitionMaxBytes: 1 << 20}}}}}
	resp := c.roundTrip(req, v).(*FetchResponse)
	require.Zero(t, resp.ErrorCode)
	require.Len(t, resp.Topics, 1)
	if v >= 13 {
		assert.Equal(t, topicID, resp.Topics[0].TopicID)
	} else {
		assert.Equal(t, "reads", resp.Topics[0].Name)
	}
	require.Len(t, resp.Topics[0].Partitions, 1)
	p := resp.Topics[0].Partitions[0]
	require.Zero(t, p.ErrorCode, "%v", ErrorForCode(p.ErrorCode))
	return p
}

// readBatches decodes every batch and returns the offsets of the data
// records and of the control records.
func readBatches(t *testing.T, data []byte) (records, markers []int64) {
	t.Helper()
	for len(data) > 0 {
		b, rest, err := DecodeRecordBatch(data, 1<<20)
		require.NoError(t, err)
		for _, r := range b.Records {
			off := b.BaseOffset + int64(r.OffsetDelta)
			if b.Attributes&AttrControl != 0 {
				markers = append(markers, off)
			} else {
				records = append(records, off)
			}
		}
		data = rest
	}
	return records, markers
}
