package main

import (
	"math"
	"regexp"
	"testing"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// produceAnswer builds a peer's answer to a ProduceRequest.
type produceAnswer func(req *protocol.ProduceRequest) *protocol.ProduceResponse

// answerEach answers every partition of req with code and offset.
func answerEach(req *protocol.ProduceRequest, code int16, offset int64) *protocol.ProduceResponse {
	resp := &protocol.ProduceResponse{}
	for _, rt := range req.Topics {
		topic := protocol.ProduceResponseTopic{Name: rt.Name}
		for _, rp := range rt.Partitions {
			topic.Partitions = append(topic.Partitions, protocol.ProduceResponsePartition{
				Index: rp.Index, ErrorCode: code, BaseOffset: offset, LogAppendTimeMs: -1, LogStartOffset: -1,
				CurrentLeader: protocol.LeaderIDAndEpoch{LeaderID: -1, LeaderEpoch: -1},
			})
		}
		resp.Topics = append(resp.Topics, topic)
	}
	return resp
}

// producePeer is a one-broker cluster whose Produce answers come from
// answer.
func producePeer(t *testing.T, answer produceAnswer) *fakePeer {
	t.Helper()
	return newClusterPeer(t, peerAnswers{produce: func(r *protocol.ProduceRequest) protocol.Response { return answer(r) }})
}

// TestPeersOddProduceResponses: a broker whose Produce responses make no
// sense: they leave the partitions out, name another topic or other
// partitions, carry an error code Kafka does not have, or ask the client
// to wait for 24 days. No record may be left without an outcome: each
// fails once, with its position and a reason, in bounded time.
func TestPeersOddProduceResponses(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		answer produceAnswer
		reason string
	}{
		{"no partitions", func(*protocol.ProduceRequest) *protocol.ProduceResponse {
			return &protocol.ProduceResponse{}
		}, `delivery timeout expired`},
		{"another topic", func(req *protocol.ProduceRequest) *protocol.ProduceResponse {
			resp := answerEach(req, 0, 0)
			for i := range resp.Topics {
				resp.Topics[i].Name = "other"
			}
			return resp
		}, `delivery timeout expired`},
		{"other partitions", func(req *protocol.ProduceRequest) *protocol.ProduceResponse {
			resp := answerEach(req, 0, 0)
			for i := range resp.Topics {
				for j := range resp.Topics[i].Partitions {
					resp.Topics[i].Partitions[j].Index += 100
				}
			}
			return resp
		}, `delivery timeout expired`},
		{"unknown error code", func(req *protocol.ProduceRequest) *protocol.ProduceResponse {
			return answerEach(req, 9999, -1)
		}, `9999`},
		{"throttled for 24 days", func(req *protocol.ProduceRequest) *protocol.ProduceResponse {
			resp := answerEach(req, protocol.ErrNotLeaderOrFollower.Code, -1)
			resp.ThrottleTimeMs = math.MaxInt32
			return resp
		}, `delivery timeout expired`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := producePeer(t, tc.answer)
			peerRun(t, p.addr(), peerDeliveryTimeout+peerMargin, regexp.MustCompile(`t/\d: .*`+tc.reason), false)
		})
	}
}
