package protocol

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// fetchResponseWithTags is kmsg's encoding of the fixture at v with the
// tagged fields kproduce does not model (DivergingEpoch, SnapshotId) and
// unknown tags at every level.
func fetchResponseWithTags(tb testing.TB, v int16) []byte {
	small := msgTestBatch(tb, 3, 10, 4242, 1, 0)
	large := msgTestBatch(tb, 8, 700, -1, -1, -1)
	k := fetchResponseToKmsg(fetchResponseFull(small, large))
	k.Version = v
	k.UnknownTags.Set(9, []byte{1, 2})
	k.Topics[0].UnknownTags.Set(4, []byte{3})
	p := &k.Topics[0].Partitions[0]
	p.DivergingEpoch.Epoch, p.DivergingEpoch.EndOffset = 5, 77
	p.SnapshotID.Epoch, p.SnapshotID.EndOffset = 6, 88
	p.UnknownTags.Set(12, []byte{4, 5, 6})
	p.AbortedTransactions[0].UnknownTags.Set(1, nil)
	return k.AppendTo(nil)
}

func TestFetchResponseSkipsUnmodelledTags(t *testing.T) {
	small := msgTestBatch(t, 3, 10, 4242, 1, 0)
	large := msgTestBatch(t, 8, 700, -1, -1, -1)
	for v := int16(12); v <= 18; v++ {
		t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) {
			var got FetchResponse
			r := NewReader(fetchResponseWithTags(t, v))
			require.NoError(t, got.Decode(r, v))
			assert.Zero(t, r.Remaining())
			assert.Equal(t, fetchResponseCase(small, large).at(v), &got)
		})
	}
}

func TestFetchRequestSkipsUnmodelledTags(t *testing.T) {
	for v := int16(12); v <= 18; v++ {
		t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) {
			k := fetchRequestToKmsg(fetchRequestFull())
			k.Version = v
			k.ClusterID = msgPtr("cluster")
			k.ReplicaState.ID, k.ReplicaState.Epoch = 4, 9
			k.Topics[0].Partitions[0].ReplicaDirectoryID = msgUUIDB()
			k.Topics[0].Partitions[0].HighWatermark = 99
			var got FetchRequest
			r := NewReader(k.AppendTo(nil))
			require.NoError(t, got.Decode(r, v))
			assert.Zero(t, r.Remaining())
			assert.Equal(t, fetchRequestCase().at(v), &got)
		})
	}
}

func TestFetchRequestAllowedVersions(t *testing.T) {
	m := fetchRequestFull()
	assert.Equal(t, VersionRange{4, 18}, m.AllowedVersions(), "every topic has an id")
	m.Topics[1].TopicID = [16]byte{}
	assert.Equal(t, VersionRange{4, 12}, m.AllowedVersions(), "a topic without an id can only be named")
	var _ VersionBounded = m
}

func TestFetchResponseNullAndEmptyAbortedTransactions(t *testing.T) {
	// Kafka sends null when there are none; an empty array is kept apart.
	for _, v := range []int16{4, 11, 12, 18} {
		for _, aborted := range [][]FetchResponseAbortedTransaction{nil, {}} {
			m := &FetchResponse{Topics: []FetchResponseTopic{{Name: "t", TopicID: msgUUIDA(),
				Partitions: []FetchResponsePartition{{HighWatermark: 1, LastStableOffset: 1, LogStartOffset: -1,
					PreferredReadReplica: -1, CurrentLeader: unknownLeader(), AbortedTransactions: aborted}}}}}
			if v >= 13 {
				m.Topics[0].Name = ""
			} else {
				m.Topics[0].TopicID = [16]byte{}
			}
			k := kmsg.NewPtrFetchResponse()
			k.Version = v
			require.NoError(t, k.ReadFrom(msgEncode(m, v)))
			assert.Equal(t, aborted == nil, k.Topics[0].Partitions[0].AbortedTransactions == nil, "v%d", v)
			var got FetchResponse
			require.NoError(t, got.Decode(NewReader(msgEncode(m, v)), v))
			assert.Equal(t, m, &got, "v%d", v)
		}
	}
}

func FuzzFetchResponse(f *testing.F) {
	small := msgTestBatch(f, 3, 10, 4242, 1, 0)
	large := msgTestBatch(f, 8, 700, -1, -1, -1)
	extra := map[string][]byte{}
	for _, v := range []int16{12, 16} {
		extra[fmt.Sprintf("kmsg-tags-v%d", v)] = fetchResponseWithTags(f, v)
	}
	msgFuzzResponse(f, fetchResponseCase(small, large), extra)
}

func FuzzListOffsetsResponse(f *testing.F) { msgFuzzResponse(f, listOffsetsResponseCase(), nil) }
