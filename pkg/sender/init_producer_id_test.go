package sender

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/network"
	"github.com/kproduce/kproduce/pkg/network/networktest"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// stepUntilInit steps until an InitProducerId request is sent and returns
// it.
func (f *fixture) stepUntilInit() networktest.SentRequest {
	f.t.Helper()
	before := len(f.initRequests())
	for i := 0; i < 20; i++ {
		if reqs := f.initRequests(); len(reqs) > before {
			return reqs[len(reqs)-1]
		}
		f.step()
	}
	f.t.Fatal("no InitProducerId request was sent")
	return networktest.SentRequest{}
}

// TestInitProducerIDComesFirst: nothing is produced before the producer
// id is known, the request is not repeated while in flight, and the wait
// does not spin.
func TestInitProducerIDComesFirst(t *testing.T) {
	f := newFixture(t, fixtureOptions{manualInit: true})
	positions := f.sendN("t", 0, 3)
	f.advance(testLinger)
	init := f.stepUntilInit()
	body := init.Body.(*protocol.InitProducerIdRequest)
	assert.Nil(t, body.TransactionalID)
	assert.Equal(t, int64(-1), body.ProducerID)
	polls := len(f.sel.PollTimeouts())
	f.requireNoProduce("no producer id yet")
	assert.Len(t, f.initRequests(), 1, "one request in flight at a time")
	for _, d := range f.sel.PollTimeouts()[polls:] {
		assert.Positive(t, d, "the sender waits for the producer id instead of spinning")
	}

	f.sel.RespondTo(init, &protocol.InitProducerIdResponse{ProducerID: 42, ProducerEpoch: 3})
	req := f.stepUntilProduce()[0]
	b := f.batchFor(req, "t", 0)
	assert.Equal(t, int64(42), b.batch.ProducerID)
	assert.Equal(t, int16(3), b.batch.ProducerEpoch)
	assert.Equal(t, int32(0), b.batch.FirstSequence)
	f.respondAll(req, success)
	f.step()
	for _, p := range positions {
		require.NoError(t, f.outcome(p).err)
	}
	f.requireExactlyOnce()
}

// TestInitProducerIDRetriesWithBackoff: a retriable error or a lost
// connection is retried after the retry backoff, which grows.
func TestInitProducerIDRetriesWithBackoff(t *testing.T) {
	f := newFixture(t, fixtureOptions{manualInit: true})
	p := f.send("t", 0)
	init := f.stepUntilInit()
	f.sel.RespondTo(init, &protocol.InitProducerIdResponse{ErrorCode: protocol.ErrCoordinatorLoadInProgress.Code, ProducerID: -1, ProducerEpoch: -1})
	f.step()
	f.advance(testRetryBackoff - time.Millisecond)
	f.requireNoProduce("no producer id")
	assert.Len(t, f.initRequests(), 1, "not before the backoff")
	f.advance(time.Millisecond)
	init = f.stepUntilInit()

	f.sel.Disconnect(init.Conn, nil)
	f.step()
	f.advance(2*testRetryBackoff - time.Millisecond)
	f.step()
	assert.Len(t, f.initRequests(), 2, "the backoff doubles")
	f.advance(time.Millisecond)
	init = f.stepUntilInit()
	f.sel.RespondTo(init, &protocol.InitProducerIdResponse{ProducerID: 7})
	req := f.stepUntilProduce()[0]
	assert.Equal(t, int64(7), f.batchFor(req, "t", 0).batch.ProducerID)
	f.respondAll(req, success)
	f.step()
	require.NoError(t, f.outcome(p).err)
	f.requireExactlyOnce()
}

// TestInitProducerIDFatalErrors: a broker that refuses idempotence stops
// the producer: every record fails with the reason, Send returns it, and
// nothing more is sent.
func TestInitProducerIDFatalErrors(t *testing.T) {
	tests := []struct {
		name   string
		answer func(f *fixture, init networktest.SentRequest)
		want   error
	}{
		{"cluster authorization", func(f *fixture, init networktest.SentRequest) {
			f.sel.RespondTo(init, &protocol.InitProducerIdResponse{ErrorCode: protocol.ErrClusterAuthorizationFailed.Code, ProducerID: -1})
		}, protocol.ErrClusterAuthorizationFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, fixtureOptions{manualInit: true, topics: map[string]int32{"t": 2}})
			positions := append(f.sendN("t", 0, 2), f.sendN("t", 1, 1)...)
			init := f.stepUntilInit()
			tt.answer(f, init)
			f.step()
			for _, p := range positions {
				assert.ErrorIs(t, f.outcome(p).err, tt.want)
			}
			require.ErrorIs(t, f.p.FatalError(), tt.want)
			err := f.produce(context.Background(), &Record{Topic: "t", Partition: 0, Value: []byte("x")}, f.position())
			require.ErrorIs(t, err, tt.want)
			f.mu.Lock()
			f.nextPos-- // that record was refused, it has no outcome
			f.mu.Unlock()
			for i := 0; i < 5; i++ {
				f.advanceStep(time.Second)
			}
			assert.Len(t, f.initRequests(), 1, "not asked again")
			assert.Empty(t, f.allProduce())
			f.requireExactlyOnce()
		})
	}
}

// TestInitProducerIDUnsupported: a broker without InitProducerId cannot
// give a producer id: the producer stops instead of retrying forever.
func TestInitProducerIDUnsupported(t *testing.T) {
	versions := networktest.DefaultApiVersions()
	keys := versions.ApiKeys[:0]
	for _, k := range versions.ApiKeys {
		if k.ApiKey != int16(protocol.KeyInitProducerId) {
			keys = append(keys, k)
		}
	}
	versions.ApiKeys = keys
	clock := networktest.NewManualClock(time.Unix(1_700_000_000, 0))
	sel := networktest.NewMockSelector()
	sel.AutoReady(versions)
	cluster := clusterMetadata(1, map[string]int32{"t": 1})
	sel.AutoRespond(protocol.KeyMetadata, func(networktest.SentRequest) protocol.Response { return cluster })
	p, err := newProducer(testConfig(), sel, clock)
	require.NoError(t, err)
	t.Cleanup(p.sender.client.Close)
	for i := 0; i < 20 && p.FatalError() == nil; i++ {
		p.sender.runOnce()
	}
	require.ErrorIs(t, p.FatalError(), network.ErrUnsupportedVersion)
	assert.Contains(t, p.FatalError().Error(), "idempotence=false")
}
