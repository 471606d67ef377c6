package sender

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/accumulator"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// records builds n records for topic with the fixture's next positions;
// shape adjusts record i (its key, partition...).
func (f *fixture) records(topic string, n int, shape func(i int, r *Record)) []Record {
	recs := make([]Record, n)
	for i := range recs {
		pos := f.position()
		recs[i] = Record{Topic: topic, Partition: -1, Value: []byte(value(pos)), Position: pos}
		if shape != nil {
			shape(i, &recs[i])
		}
	}
	return recs
}

// sendEach sends records one by one with Send, as a caller without
// SendBatch would.
func (f *fixture) sendEach(recs []Record) {
	f.t.Helper()
	for i := range recs {
		require.NoError(f.t, f.p.Send(context.Background(), &recs[i], recs[i].Position))
	}
}

// deliverAll steps, moving the clock by the linger, until every record
// sent so far has an outcome, with the broker answering every request.
func (f *fixture) deliverAll() {
	f.t.Helper()
	f.autoProduce()
	for i := 0; i < 200; i++ {
		f.mu.Lock()
		done := len(f.outcomes) == int(f.nextPos)
		f.mu.Unlock()
		if done {
			return
		}
		f.advanceStep(testLinger)
	}
	f.t.Fatal("records still pending")
}

// logs returns what the broker stored, per partition of the topics.
func (f *fixture) logs(topics map[string]int32) map[accumulator.TopicPartition][]string {
	out := make(map[accumulator.TopicPartition][]string)
	for topic, n := range topics {
		for p := int32(0); p < n; p++ {
			if l := f.log(tp(topic, p)); len(l) > 0 {
				out[tp(topic, p)] = l
			}
		}
	}
	return out
}

// TestSendBatchPlacesRecordsAsSendDoes: for unkeyed records (sticky
// partitioning moving on as batches fill), keyed ones (murmur2), records
// naming their partition and a mix of them, SendBatch leaves every record
// in the same partition, in the same order, as Send one by one; each
// record is reported once.
func TestSendBatchPlacesRecordsAsSendDoes(t *testing.T) {
	topics := map[string]int32{"t": 3, "u": 2}
	shapes := map[string]func(i int, r *Record){
		"unkeyed": nil,
		"keyed":   func(i int, r *Record) { r.Key = []byte(fmt.Sprintf("key-%d", i%7)) },
		"partition": func(i int, r *Record) {
			r.Partition = int32(i % 3)
		},
		"mixed": func(i int, r *Record) {
			switch i % 5 {
			case 1:
				r.Key = []byte{byte(i)}
			case 2:
				r.Partition = 2
			case 3:
				r.Topic = "u"
			}
		},
	}
	for name, shape := range shapes {
		t.Run(name, func(t *testing.T) {
			opts := fixtureOptions{topics: topics, config: configs(nonIdempotent, recordsPerBatch(4))}
			one := newFixture(t, opts)
			one.sendEach(one.records("t", 30, shape))
			one.deliverAll()

			batch := newFixture(t, opts)
			recs := batch.records("t", 30, shape)
			n, err := batch.p.SendBatch(context.Background(), recs, func(i int, err error) {
				t.Errorf("record %d refused: %v", i, err)
			})
			require.NoError(t, err)
			assert.Equal(t, len(recs), n)
			batch.deliverAll()

			want := one.logs(topics)
			assert.Equal(t, want, batch.logs(topics))
			if name == "unkeyed" {
				assert.Greater(t, len(want), 1, "the sticky partition moved on as batches filled")
			}
			batch.requireExactlyOnce()
		})
	}
}

// TestSendBatchRefusesRecordsOneByOne: a record naming a partition the
// topic lacks and a record too large are refused with Send's errors and
// their indexes; the others are delivered.
func TestSendBatchRefusesRecordsOneByOne(t *testing.T) {
	f := newFixture(t, fixtureOptions{topics: map[string]int32{"t": 2}, config: nonIdempotent})
	recs := f.records("t", 6, func(i int, r *Record) {
		switch i {
		case 1:
			r.Partition = 5
		case 3:
			r.Value = make([]byte, 2<<20)
		case 4:
			r.Key = []byte("k")
			r.Value = make([]byte, 2<<20)
		}
	})
	refused := map[int]error{}
	n, err := f.p.SendBatch(context.Background(), recs, func(i int, err error) { refused[i] = err })
	require.NoError(t, err)
	assert.Equal(t, len(recs), n)
	require.Len(t, refused, 3)
	assert.ErrorIs(t, refused[1], ErrUnknownPartition)
	assert.ErrorIs(t, refused[3], ErrRecordTooLarge)
	assert.ErrorIs(t, refused[4], ErrRecordTooLarge)
	for i, want := range refused {
		got := f.p.Send(context.Background(), &recs[i], accumulator.Position{})
		assert.Equal(t, got.Error(), want.Error(), "record %d: Send's error", i)
	}
	f.deliverAll2(recs[0].Position, recs[2].Position, recs[5].Position)
}

// deliverAll2 steps until the records at the positions have an outcome,
// and checks that each was delivered.
func (f *fixture) deliverAll2(positions ...accumulator.Position) {
	f.t.Helper()
	f.autoProduce()
	for i := 0; i < 200 && slices.ContainsFunc(positions, f.pending); i++ {
		f.advanceStep(testLinger)
	}
	for _, pos := range positions {
		assert.NoError(f.t, f.outcome(pos).err)
	}
}

// TestSendBatchFetchesNewTopicsTogether: the topics of a batch that the
// metadata does not know are asked for in one Metadata request, without
// the refresh backoff, before SendBatch waits for the first of them.
func TestSendBatchFetchesNewTopicsTogether(t *testing.T) {
	f := newFixture(t, fixtureOptions{config: nonIdempotent})
	var recs []Record
	for _, topic := range []string{"a", "b", "c", "a", "d"} {
		recs = append(recs, f.records(topic, 2, nil)...)
	}
	before := f.metadataRequests()
	done := make(chan error, 1)
	go func() {
		_, err := f.p.SendBatch(context.Background(), recs, nil)
		done <- err
	}()
	waitUntil(t, "SendBatch to ask for the topics", func() bool { return slices.Contains(f.p.md.Topics(), "a") })
	assert.Equal(t, []string{"a", "b", "c", "d"}, f.p.md.Topics(), "added at once")
	f.setCluster(clusterMetadata(1, map[string]int32{"t": 1, "a": 1, "b": 2, "c": 1, "d": 1}))
	f.step() // no clock move: a first lookup skips the refresh backoff
	require.NoError(t, receive(t, done, "SendBatch"))
	assert.Equal(t, before+1, f.metadataRequests(), "one fetch for the four new topics")
	f.deliverAll()
	f.requireExactlyOnce()
}

// TestSendBatchStops: a closed producer accepts nothing; a context that
// ends while a topic's metadata is awaited stops the batch at that
// topic's first record, after the records before it were appended.
func TestSendBatchStops(t *testing.T) {
	t.Run("closed", func(t *testing.T) {
		f := newFixture(t, fixtureOptions{config: nonIdempotent})
		f.p.sender.closing.Store(true)
		n, err := f.p.SendBatch(context.Background(), f.records("t", 3, nil), nil)
		assert.ErrorIs(t, err, ErrClosed)
		assert.Zero(t, n)
	})
	t.Run("context", func(t *testing.T) {
		f := newFixture(t, fixtureOptions{config: nonIdempotent})
		recs := append(f.records("t", 2, nil), f.records("missing", 2, nil)...)
		ctx, cancel := context.WithCancel(context.Background())
		type result struct {
			n   int
			err error
		}
		done := make(chan result, 1)
		go func() {
			n, err := f.p.SendBatch(ctx, recs, nil)
			done <- result{n, err}
		}()
		waitUntil(t, "SendBatch to ask for the topic", func() bool { return slices.Contains(f.p.md.Topics(), "missing") })
		cancel()
		r := receive(t, done, "SendBatch")
		assert.ErrorIs(t, r.err, context.Canceled)
		assert.Equal(t, 2, r.n)
		f.deliverAll2(recs[0].Position, recs[1].Position)
	})
	t.Run("fatal", func(t *testing.T) {
		f := newFixture(t, fixtureOptions{config: nonIdempotent})
		f.s.setFatal(protocol.ErrClusterAuthorizationFailed)
		n, err := f.p.SendBatch(context.Background(), f.records("t", 3, nil), nil)
		assert.ErrorIs(t, err, protocol.ErrClusterAuthorizationFailed)
		assert.Zero(t, n)
	})
}

// TestSendBatchRoundRobin: a partitioner that is not sticky places each
// unkeyed record on its own, as with Send.
func TestSendBatchRoundRobin(t *testing.T) {
	topics := map[string]int32{"t": 3}
	opts := fixtureOptions{topics: topics, config: configs(nonIdempotent, recordsPerBatch(4), func(c *Config) {
		c.Partitioner = accumulator.NewRoundRobinPartitioner()
	})}
	one := newFixture(t, opts)
	one.sendEach(one.records("t", 20, nil))
	one.deliverAll()
	batch := newFixture(t, opts)
	_, err := batch.p.SendBatch(context.Background(), batch.records("t", 20, nil), nil)
	require.NoError(t, err)
	batch.deliverAll()
	assert.Equal(t, one.logs(topics), batch.logs(topics))
	assert.Len(t, batch.logs(topics), 3)
}

// TestSendBatchReadTime: records without a timestamp take their read
// time's, and a batch counts its linger from the read time of the record
// that opened it.
func TestSendBatchReadTime(t *testing.T) {
	f := newFixture(t, fixtureOptions{config: nonIdempotent})
	readAt := f.now().Add(-testLinger)
	recs := f.records("t", 3, func(i int, r *Record) {
		r.ReadAt = readAt
		if i == 2 {
			r.Timestamp = 42
		}
	})
	_, err := f.p.SendBatch(context.Background(), recs, nil)
	require.NoError(t, err)
	req := f.stepUntilProduce()[0] // the linger counted from readAt is over
	f.respondAll(req, success)
	f.step()
	assert.Equal(t, readAt.UnixMilli(), f.outcome(recs[0].Position).timestamp)
	assert.Equal(t, readAt.UnixMilli(), f.outcome(recs[1].Position).timestamp)
	assert.Equal(t, int64(42), f.outcome(recs[2].Position).timestamp)
}
