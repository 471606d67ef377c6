package sender

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// sendAsync runs Send on its own goroutine (it may block on metadata) and
// returns its error channel, once the producer asked for the topic.
func (f *fixture) sendAsync(ctx context.Context, rec *Record) (<-chan error, func() bool) {
	pos := f.position()
	errc := make(chan error, 1)
	go func() { errc <- f.produce(ctx, rec, pos) }()
	waitUntil(f.t, "Send to ask for the topic's metadata", func() bool {
		return slices.Contains(f.p.md.Topics(), rec.Topic)
	})
	return errc, func() bool { return len(errc) == 0 }
}

// awaitUpdateRequest waits until the blocked Send asked for a metadata
// update (after the last one did not know its topic).
func (f *fixture) awaitUpdateRequest() {
	f.t.Helper()
	waitUntil(f.t, "Send to ask for a metadata update", func() bool {
		return f.p.md.TimeToNextUpdate(f.now()) < time.Minute
	})
}

// TestSendWaitsForAnUnknownTopic: Send blocks until the metadata knows the
// topic, asking again after each update that does not (a topic being
// created appears only later), and then the record is delivered.
func TestSendWaitsForAnUnknownTopic(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	errc, blocked := f.sendAsync(context.Background(), &Record{Topic: "new", Partition: -1, Value: []byte("x")})
	before := f.metadataRequests()
	for i := 0; i < 3; i++ {
		f.awaitUpdateRequest()
		f.advanceStep(time.Second) // refresh backoff passed: the producer asks again
	}
	assert.GreaterOrEqual(t, f.metadataRequests(), before+2, "metadata fetched again while the topic is missing")
	assert.True(t, blocked(), "Send waits while the topic is unknown")

	cluster := clusterMetadata(1, map[string]int32{"t": 1, "new": 3})
	cluster.Topics[0].Partitions[2].LeaderID = -1 // a partition without a leader does not matter
	f.setCluster(cluster)
	f.awaitUpdateRequest()
	f.advanceStep(time.Second)
	require.Equal(t, 3, f.p.md.Fetch().PartitionCount("new"))
	require.NoError(t, receive(t, errc, "Send"))
	f.advance(testLinger)
	req := f.stepUntilProduce()[0]
	f.respondAll(req, success)
	f.step()
	f.requireExactlyOnce()
}

// TestSendToAMissingTopic: a topic that stays unknown fails Send after
// MaxBlock, by the producer's clock; later Sends for it fail at once, and
// no record reaches the callback.
func TestSendToAMissingTopic(t *testing.T) {
	f := newFixture(t, fixtureOptions{config: func(c *config) { c.MaxBlock = time.Minute }})
	errc, blocked := f.sendAsync(context.Background(), &Record{Topic: "missing", Partition: -1, Value: []byte("x")})
	f.awaitUpdateRequest()
	f.advanceStep(time.Minute - time.Millisecond)
	f.awaitUpdateRequest()
	assert.True(t, blocked(), "not before MaxBlock")
	f.advanceStep(100 * time.Millisecond) // MaxBlock passed; the next update (after the refresh backoff) ends the wait
	err := receive(t, errc, "Send")
	require.ErrorIs(t, err, ErrTopicMetadata)
	assert.Contains(t, err.Error(), "missing")

	done := make(chan error, 1)
	go func() {
		done <- f.produce(context.Background(), &Record{Topic: "missing", Partition: -1}, f.position())
	}()
	require.ErrorIs(t, receive(t, done, "a second Send"), ErrTopicMetadata, "fails fast")
	f.mu.Lock()
	f.nextPos -= 2 // refused records have no outcome
	f.mu.Unlock()
	f.requireExactlyOnce()
}

// TestSendToAnUnauthorizedTopic: a topic error that retrying cannot fix
// fails Send at once.
func TestSendToAnUnauthorizedTopic(t *testing.T) {
	f := newFixture(t, fixtureOptions{cluster: func(md *protocol.MetadataResponse) {
		name := "secret"
		md.Topics = append(md.Topics, protocol.MetadataResponseTopic{Name: &name, ErrorCode: protocol.ErrTopicAuthorizationFailed.Code})
	}})
	errc, _ := f.sendAsync(context.Background(), &Record{Topic: "secret", Partition: -1, Value: []byte("x")})
	f.awaitUpdateRequest()
	f.advanceStep(time.Second)
	require.ErrorIs(t, receive(t, errc, "Send"), protocol.ErrTopicAuthorizationFailed)
}

// TestSendChecksThePartitionAndSize: a partition the topic does not have,
// and a record larger than a request, are refused by Send itself.
func TestSendChecksThePartitionAndSize(t *testing.T) {
	f := newFixture(t, fixtureOptions{topics: map[string]int32{"t": 2}, config: func(c *config) { c.MaxRequestSize = 1000 }})
	err := f.produce(context.Background(), &Record{Topic: "t", Partition: 2, Value: []byte("x")}, f.position())
	require.ErrorIs(t, err, ErrUnknownPartition)
	assert.Contains(t, err.Error(), "2 partitions")
	err = f.produce(context.Background(), &Record{Topic: "t", Partition: 0, Value: make([]byte, 1000)}, f.position())
	require.ErrorIs(t, err, ErrRecordTooLarge)
	f.mu.Lock()
	f.nextPos = 0
	f.mu.Unlock()
	f.requireNoProduce("nothing accepted")
	f.requireExactlyOnce()
}

// TestSendWithCancelledContextWhileWaiting: a Send waiting for metadata
// returns its context's error.
func TestSendWithCancelledContextWhileWaiting(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	errc, _ := f.sendAsync(ctx, &Record{Topic: "new", Partition: -1})
	cancel()
	require.ErrorIs(t, receive(t, errc, "Send"), context.Canceled)
}

// TestRecordAfterAMetadataWait: a record handed over in one ProduceBatch
// with one whose topic had to be waited for, and placed after the wait,
// counts its delivery timeout and timestamp from the end of the wait, as
// if handed over then: it is delivered, not expired by the other topic's
// wait.
func TestRecordAfterAMetadataWait(t *testing.T) {
	f := newFixture(t, fixtureOptions{config: func(c *config) {
		c.MaxBlock = time.Minute
		c.Accumulator.DeliveryTimeout = 30 * time.Second
	}})
	start := f.now()
	missing, pos := f.position(), f.position()
	recs := []Record{
		{Topic: "missing", Partition: AnyPartition, Value: []byte("x"), Opaque: missing},
		{Topic: "t", Partition: AnyPartition, Value: []byte(value(pos)), Opaque: pos},
	}
	errc := make(chan error, 1)
	go func() {
		_, err := f.p.ProduceBatch(context.Background(), ptrsOf(recs), f.promise)
		errc <- err
	}()
	waitUntil(t, "ProduceBatch to ask for the topic's metadata", func() bool { return slices.Contains(f.p.md.Topics(), "missing") })
	f.awaitUpdateRequest()
	f.advanceStep(time.Minute - time.Millisecond)
	// The wait gives up at the first metadata update after MaxBlock: step
	// on, the metadata answered as it is asked for, until it has. (Waiting
	// for the wait to ask first would race with the refresh the first
	// lookup of a topic schedules by itself.)
	var err error
	waitUntil(t, "ProduceBatch to give up on the topic", func() bool {
		select {
		case err = <-errc:
			return true
		default:
			f.advanceStep(10 * time.Millisecond)
			return false
		}
	})
	require.NoError(t, err)
	require.ErrorIs(t, f.outcome(missing).err, ErrTopicMetadata)
	waitEnd := f.now()
	require.Greater(t, waitEnd.Sub(start), 30*time.Second, "the wait outlasted the delivery timeout")

	f.advance(testLinger)
	req := f.stepUntilProduce()[0]
	f.respondAll(req, success)
	f.step()
	out := f.outcome(pos)
	require.NoError(t, out.err)
	assert.GreaterOrEqual(t, out.timestamp, start.Add(time.Minute).UnixMilli(), "stamped when the wait ended, after MaxBlock")
	assert.LessOrEqual(t, out.timestamp, waitEnd.UnixMilli())
}
