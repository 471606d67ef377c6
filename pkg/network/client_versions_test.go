package network_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/network"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// fetchRequest fetches one partition of a topic, named by id when id is
// true.
func fetchRequest(id bool) *protocol.FetchRequest {
	t := protocol.FetchRequestTopic{Name: "t", Partitions: []protocol.FetchRequestPartition{{PartitionMaxBytes: 1 << 20}}}
	if id {
		t.TopicID = [16]byte{1, 2, 3}
	}
	return &protocol.FetchRequest{ReplicaID: -1, MaxWaitMs: 100, MinBytes: 1, MaxBytes: 1 << 20, SessionEpoch: -1,
		Topics: []protocol.FetchRequestTopic{t}}
}

func TestVersionSelectionKeepsWithinTheRequestsVersions(t *testing.T) {
	tests := []struct {
		name     string
		minV     int16
		maxV     int16
		topicIDs bool
		want     int16
		err      string
	}{
		{name: "topic ids known", minV: 4, maxV: 18, topicIDs: true, want: 18},
		{name: "no topic id: the last version with names", minV: 4, maxV: 18, want: 12},
		{name: "older broker", minV: 4, maxV: 11, want: 11},
		{name: "older broker, ids known", minV: 4, maxV: 11, topicIDs: true, want: 11},
		{name: "broker speaking ids only", minV: 13, maxV: 18,
			err: "broker 1 (127.0.0.1:9091): unsupported api version: Fetch: this request needs v4-v12, which the broker and kproduce do not share"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, baseConfig(), testNodes()...)
			h.connect(1, versionsWith(protocol.KeyFetch, tt.minV, tt.maxV))
			req := h.send(1, fetchRequest(tt.topicIDs), true, 0, nil)
			if tt.err == "" {
				require.Empty(t, h.poll())
				sent := h.sel.SentKey(1, protocol.KeyFetch)
				require.Len(t, sent, 1)
				assert.Equal(t, tt.want, sent[0].Header.APIVersion)
				return
			}
			responses := h.poll()
			require.Len(t, responses, 1)
			assert.Same(t, req, responses[0].Request)
			assert.ErrorIs(t, responses[0].Err, network.ErrUnsupportedVersion)
			assert.EqualError(t, responses[0].Err, tt.err)
			assert.Empty(t, h.sel.SentKey(1, protocol.KeyFetch), "nothing goes on the wire")
		})
	}
}

func TestReadSideThrottle(t *testing.T) {
	// From Fetch v8 and ListOffsets v3 the broker answers at once and the
	// client waits out the throttle time itself (KIP-219); before, the
	// broker has already delayed its answer.
	tests := []struct {
		name    string
		key     protocol.APIKey
		version int16
		req     protocol.Request
		resp    protocol.Response
		waits   bool
	}{
		{"Fetch v8", protocol.KeyFetch, 8, fetchRequest(false), &protocol.FetchResponse{ThrottleTimeMs: 300}, true},
		{"Fetch v7", protocol.KeyFetch, 7, fetchRequest(false), &protocol.FetchResponse{ThrottleTimeMs: 300}, false},
		{"ListOffsets v3", protocol.KeyListOffsets, 3, &protocol.ListOffsetsRequest{ReplicaID: -1},
			&protocol.ListOffsetsResponse{ThrottleTimeMs: 300}, true},
		{"ListOffsets v2", protocol.KeyListOffsets, 2, &protocol.ListOffsetsRequest{ReplicaID: -1},
			&protocol.ListOffsetsResponse{ThrottleTimeMs: 300}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, baseConfig(), testNodes()...)
			h.connect(1, versionsWith(tt.key, tt.version, tt.version))
			h.send(1, tt.req, true, 0, nil)
			h.poll()
			sent, _ := h.sel.LastSent(1)
			require.Equal(t, tt.version, sent.Header.APIVersion)
			h.sel.RespondTo(sent, tt.resp)
			responses := h.poll()
			require.Len(t, responses, 1)
			require.NoError(t, responses[0].Err)
			assert.Equal(t, !tt.waits, h.c.IsReady(1, h.now()))
			if tt.waits {
				assert.Equal(t, 300*time.Millisecond, h.c.ConnectionDelay(1, h.now()))
			}
		})
	}
}
