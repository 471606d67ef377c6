package sender

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

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
		recs[i] = Record{Topic: topic, Partition: -1, Value: []byte(value(pos)), Opaque: pos}
		if shape != nil {
			shape(i, &recs[i])
		}
	}
	return recs
}

// sendEach sends records one by one with Produce, as a caller without
// ProduceBatch would.
func (f *fixture) sendEach(recs []Record) {
	f.t.Helper()
	for i := range recs {
		require.NoError(f.t, f.produce(context.Background(), &recs[i], posOf(recs[i])))
	}
}

// produceBatch hands recs to the producer with ProduceBatch, the
// fixture's promise recording each outcome; records refused at once are
// recorded as outcomes too.
func (f *fixture) produceBatch(ctx context.Context, recs []Record) (int, error) {
	return f.p.ProduceBatch(ctx, ptrsOf(recs), f.promise)
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

// TestProduceBatchPlacesRecordsAsProduceDoes: for unkeyed records (sticky
// partitioning moving on as batches fill), keyed ones (murmur2), records
// naming their partition and a mix of them, ProduceBatch leaves every
// record in the same partition, in the same order, as Produce one by one;
// each record is reported once.
func TestProduceBatchPlacesRecordsAsProduceDoes(t *testing.T) {
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
			n, err := batch.p.ProduceBatch(context.Background(), ptrsOf(recs), func(r *Record, err error) {
				require.NoError(t, err, "record %v", r.Opaque)
				batch.promise(r, err)
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

// TestProduceBatchRefusesRecordsOneByOne: a record naming a partition the
// topic lacks and a record too large are refused with Produce's errors,
// before ProduceBatch returns; the others are delivered.
func TestProduceBatchRefusesRecordsOneByOne(t *testing.T) {
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
	n, err := f.p.ProduceBatch(context.Background(), ptrsOf(recs), func(r *Record, err error) {
		if err == nil {
			f.promise(r, err)
			return
		}
		i := slices.IndexFunc(recs, func(rec Record) bool { return rec.Opaque == r.Opaque })
		assert.Same(t, &recs[i], r, "a refused record's promise gets the record itself")
		assert.Equal(t, int64(-1), r.Offset)
		refused[i] = err
	})
	require.NoError(t, err)
	assert.Equal(t, len(recs), n)
	require.Len(t, refused, 3)
	assert.ErrorIs(t, refused[1], ErrUnknownPartition)
	assert.ErrorIs(t, refused[3], ErrRecordTooLarge)
	assert.ErrorIs(t, refused[4], ErrRecordTooLarge)
	for i, want := range refused {
		got := f.produce(context.Background(), &recs[i], Position{})
		assert.Equal(t, got.Error(), want.Error(), "record %d: Produce's error", i)
	}
	f.deliverAll2(posOf(recs[0]), posOf(recs[2]), posOf(recs[5]))
}

// deliverAll2 steps until the records at the positions have an outcome,
// and checks that each was delivered.
func (f *fixture) deliverAll2(positions ...Position) {
	f.t.Helper()
	f.autoProduce()
	for i := 0; i < 200 && slices.ContainsFunc(positions, f.pending); i++ {
		f.advanceStep(testLinger)
	}
	for _, pos := range positions {
		assert.NoError(f.t, f.outcome(pos).err)
	}
}

// TestProduceBatchFetchesNewTopicsTogether: the topics of a batch that
// the metadata does not know are asked for in one Metadata request,
// without the refresh backoff, before ProduceBatch waits for the first of
// them.
func TestProduceBatchFetchesNewTopicsTogether(t *testing.T) {
	f := newFixture(t, fixtureOptions{config: nonIdempotent})
	var recs []Record
	for _, topic := range []string{"a", "b", "c", "a", "d"} {
		recs = append(recs, f.records(topic, 2, nil)...)
	}
	before := f.metadataRequests()
	done := make(chan error, 1)
	go func() {
		_, err := f.produceBatch(context.Background(), recs)
		done <- err
	}()
	waitUntil(t, "ProduceBatch to ask for the topics", func() bool { return slices.Contains(f.p.md.Topics(), "a") })
	assert.Equal(t, []string{"a", "b", "c", "d"}, f.p.md.Topics(), "added at once")
	f.setCluster(clusterMetadata(1, map[string]int32{"t": 1, "a": 1, "b": 2, "c": 1, "d": 1}))
	f.step() // no clock move: a first lookup skips the refresh backoff
	require.NoError(t, receive(t, done, "ProduceBatch"))
	assert.Equal(t, before+1, f.metadataRequests(), "one fetch for the four new topics")
	f.deliverAll()
	f.requireExactlyOnce()
}

// TestProduceBatchStops: a closed producer accepts nothing; a context
// that ends while a topic's metadata is awaited stops the batch at that
// topic's first record, after the records before it were appended.
func TestProduceBatchStops(t *testing.T) {
	t.Run("closed", func(t *testing.T) {
		f := newFixture(t, fixtureOptions{config: nonIdempotent})
		f.p.sender.closing.Store(true)
		n, err := f.produceBatch(context.Background(), f.records("t", 3, nil))
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
			n, err := f.produceBatch(ctx, recs)
			done <- result{n, err}
		}()
		waitUntil(t, "ProduceBatch to ask for the topic", func() bool { return slices.Contains(f.p.md.Topics(), "missing") })
		cancel()
		r := receive(t, done, "ProduceBatch")
		assert.ErrorIs(t, r.err, context.Canceled)
		assert.Equal(t, 2, r.n)
		f.deliverAll2(posOf(recs[0]), posOf(recs[1]))
	})
	t.Run("fatal", func(t *testing.T) {
		f := newFixture(t, fixtureOptions{config: nonIdempotent})
		f.s.setFatal(protocol.ErrClusterAuthorizationFailed)
		n, err := f.produceBatch(context.Background(), f.records("t", 3, nil))
		assert.ErrorIs(t, err, protocol.ErrClusterAuthorizationFailed)
		assert.Zero(t, n)
	})
}

// TestProduceBatchRoundRobin: a partitioner that is not sticky places
// each unkeyed record on its own, as with Produce.
func TestProduceBatchRoundRobin(t *testing.T) {
	topics := map[string]int32{"t": 3}
	opts := fixtureOptions{topics: topics, config: configs(nonIdempotent, recordsPerBatch(4), func(c *config) {
		c.Partitioner = ManualPartitioner(accumulator.NewRoundRobinPartitioner())
	})}
	one := newFixture(t, opts)
	one.sendEach(one.records("t", 20, nil))
	one.deliverAll()
	batch := newFixture(t, opts)
	_, err := batch.produceBatch(context.Background(), batch.records("t", 20, nil))
	require.NoError(t, err)
	batch.deliverAll()
	assert.Equal(t, one.logs(topics), batch.logs(topics))
	assert.Len(t, batch.logs(topics), 3)
}

// TestProduceBatchTimestamps: records without a timestamp take the time
// ProduceBatch took them, and a batch counts its linger from then.
func TestProduceBatchTimestamps(t *testing.T) {
	f := newFixture(t, fixtureOptions{config: nonIdempotent})
	takenAt := f.now()
	recs := f.records("t", 3, func(i int, r *Record) {
		if i == 2 {
			r.Timestamp = time.UnixMilli(42)
		}
	})
	_, err := f.produceBatch(context.Background(), recs)
	require.NoError(t, err)
	f.advance(testLinger - time.Millisecond)
	f.requireNoProduce("the linger counted from the hand-over has not passed")
	f.advance(time.Millisecond)
	req := f.stepUntilProduce()[0]
	f.respondAll(req, success)
	f.step()
	assert.Equal(t, takenAt.UnixMilli(), f.outcome(posOf(recs[0])).timestamp)
	assert.Equal(t, takenAt.UnixMilli(), f.outcome(posOf(recs[1])).timestamp)
	assert.Equal(t, int64(42), f.outcome(posOf(recs[2])).timestamp)
}
