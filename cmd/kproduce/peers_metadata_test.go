package main

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/kafkatest"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// clusterPeer is a one-broker cluster peer whose ApiVersions and Metadata
// answers tests may replace; Produce requests close the connection.
func clusterPeer(t *testing.T, versions func() *protocol.ApiVersionsResponse,
	metadata func(p *fakePeer, req *protocol.MetadataRequest) *protocol.MetadataResponse) *fakePeer {
	t.Helper()
	return newClusterPeer(t, peerAnswers{versions: versions, metadata: metadata})
}

// goodMetadata is peerMetadata with 6 partitions led by the peer.
func goodMetadata(p *fakePeer, req *protocol.MetadataRequest) *protocol.MetadataResponse {
	return peerMetadata(p, req, 6, 1)
}

// TestPeersOddHandshakes: brokers that cannot be used, for reasons found
// in their ApiVersions or Metadata answers: versions older than kproduce
// speaks, an ApiVersions error on every attempt, no API at all, no broker
// in the metadata, a topic that never appears or has no partitions, and
// a broker address nothing can connect to. Each record fails once, with
// its position, in bounded time, and the reason says what was wrong. A
// broker whose ApiVersions answer already rules it out (Metadata below
// v4, an error) is given up on at once.
func TestPeersOddHandshakes(t *testing.T) {
	t.Parallel()
	withVersions := func(mod func(*protocol.ApiVersionsResponse)) func() *protocol.ApiVersionsResponse {
		return func() *protocol.ApiVersionsResponse {
			v := peerAPIVersions()
			mod(v)
			return v
		}
	}
	withMetadata := func(mod func(*protocol.MetadataResponse)) func(*fakePeer, *protocol.MetadataRequest) *protocol.MetadataResponse {
		return func(p *fakePeer, req *protocol.MetadataRequest) *protocol.MetadataResponse {
			m := goodMetadata(p, req)
			mod(m)
			return m
		}
	}
	cases := []struct {
		name     string
		versions func() *protocol.ApiVersionsResponse
		metadata func(*fakePeer, *protocol.MetadataRequest) *protocol.MetadataResponse
		reason   string
		fatal    bool // the producer gives up at once: reading stops
	}{
		{"metadata older than v4", withVersions(func(v *protocol.ApiVersionsResponse) {
			for i := range v.ApiKeys {
				if v.ApiKeys[i].ApiKey == int16(protocol.KeyMetadata) {
					v.ApiKeys[i] = protocol.ApiVersionsResponseKey{ApiKey: v.ApiKeys[i].ApiKey, MinVersion: 0, MaxVersion: 3}
				}
			}
		}), goodMetadata, `unsupported api version: Metadata: the broker supports v0-v3.*upgrade the broker`, true},
		{"produce older than v3", withVersions(func(v *protocol.ApiVersionsResponse) {
			for i := range v.ApiKeys {
				if v.ApiKeys[i].ApiKey == int16(protocol.KeyProduce) {
					v.ApiKeys[i] = protocol.ApiVersionsResponseKey{ApiKey: v.ApiKeys[i].ApiKey, MinVersion: 0, MaxVersion: 2}
				}
			}
		}), goodMetadata, `unsupported api version: Produce: the broker supports v0-v2`, false},
		{"ApiVersions error on every attempt", withVersions(func(v *protocol.ApiVersionsResponse) {
			v.ErrorCode = protocol.ErrUnsupportedVersion.Code
		}), goodMetadata, `UNSUPPORTED_VERSION`, true},
		{"no API at all", withVersions(func(v *protocol.ApiVersionsResponse) { v.ApiKeys = nil }),
			goodMetadata, `unsupported api version`, true},
		{"no broker in the metadata", peerAPIVersions, withMetadata(func(m *protocol.MetadataResponse) {
			m.Brokers = nil
		}), `t/-?\d`, false},
		{"topic never appears", peerAPIVersions, withMetadata(func(m *protocol.MetadataResponse) {
			for i := range m.Topics {
				m.Topics[i].ErrorCode = protocol.ErrUnknownTopicOrPartition.Code
				m.Topics[i].Partitions = nil
			}
		}), `UNKNOWN_TOPIC_OR_PARTITION`, false},
		{"topic without partitions", peerAPIVersions, withMetadata(func(m *protocol.MetadataResponse) {
			for i := range m.Topics {
				m.Topics[i].Partitions = nil
			}
		}), `topic not present in metadata`, false},
		{"broker at port 0", peerAPIVersions, withMetadata(func(m *protocol.MetadataResponse) {
			m.Brokers[0].Port = 0
		}), `127\.0\.0\.1:0`, false},
		{"broker at an empty host", peerAPIVersions, withMetadata(func(m *protocol.MetadataResponse) {
			m.Brokers[0].Host = ""
		}), `broker 1`, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := clusterPeer(t, tc.versions, tc.metadata)
			peerRun(t, p.addr(), peerDeliveryTimeout+peerMargin, regexp.MustCompile(tc.reason), tc.fatal)
		})
	}
}

// TestPeersLeaderlessPartition: a partition without a leader (leader -1,
// LEADER_NOT_AVAILABLE) for longer than the delivery timeout, next to
// partitions that have one. Its records fail at the delivery timeout,
// saying why; the other partitions' records are delivered; and the wait
// for a leader must not spin.
func TestPeersLeaderlessPartition(t *testing.T) {
	t.Parallel()
	p := newClusterPeer(t, peerAnswers{
		metadata: func(p *fakePeer, r *protocol.MetadataRequest) *protocol.MetadataResponse {
			m := goodMetadata(p, r)
			for i := range m.Topics {
				part := &m.Topics[i].Partitions[2]
				part.ErrorCode, part.LeaderID = protocol.ErrLeaderNotAvailable.Code, -1
			}
			return m
		},
		produce: func(r *protocol.ProduceRequest) protocol.Response { return answerEach(r, 0, 0) },
	})
	in := `{"value":"a","partition":2}` + "\n" + `{"value":"b","partition":1}` + "\n" + `{"value":"c","partition":2}` + "\n"
	proc := startProcess(t, func(cmd *exec.Cmd) { cmd.Stdin = strings.NewReader(in) }, peerArgs(p.addr(), "-f", "json")...)
	code, elapsed := proc.wait(t, peerDeliveryTimeout+peerMargin+time.Minute)
	cpu := proc.cpuTime()
	t.Logf("exit %d after %v (cpu %v); stderr:\n%s", code, elapsed.Round(time.Millisecond), cpu.Round(time.Millisecond), proc.stderr.String())
	require.Equal(t, cmdutil.ExitFailed, code, proc.stderr.String())
	assert.Less(t, elapsed, peerDeliveryTimeout+peerMargin)
	assertNoSpin(t, cpu, elapsed)
	assert.Equal(t, []string{"t/1@0"}, kafkatest.Lines(proc.stdout.String()))
	errs := kafkatest.Lines(proc.stderr.String())
	require.Len(t, errs, 3, proc.stderr.String())
	assert.Regexp(t, `^error: -:1: t/2: delivery timeout expired: .*LEADER_NOT_AVAILABLE`, errs[0])
	assert.Regexp(t, `^error: -:3: t/2: delivery timeout expired: .*LEADER_NOT_AVAILABLE`, errs[1])
	assert.Equal(t, "1 delivered, 2 failed", errs[2])
}
