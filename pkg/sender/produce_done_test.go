package sender

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/accumulator"
	"github.com/kproduce/kproduce/pkg/network/networktest"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// doneWatch is the done of one ProduceBatchDone call: it counts its runs
// and notes, when it runs, which of the call's records had no promise yet
// (none must be left, unless they were delivered under
// SkipDeliveredPromises) and how many records the producer had completed.
type doneWatch struct {
	f         *fixture
	positions []Position
	runs      atomic.Int32
	mu        sync.Mutex
	early     []Position // records without an outcome when done ran
	completed int64      // the producer's delivered+failed records when done ran
}

func (f *fixture) watch(recs []Record) *doneWatch {
	w := &doneWatch{f: f}
	for _, r := range recs {
		w.positions = append(w.positions, posOf(r))
	}
	return w
}

func (w *doneWatch) done() {
	w.runs.Add(1)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.early = w.early[:0]
	for _, p := range w.positions {
		if w.f.pending(p) {
			w.early = append(w.early, p)
		}
	}
	delivered, failed := w.f.p.acc.Outcomes()
	w.completed = delivered + failed
}

// produceDone hands recs over with ProduceBatchDone, the fixture's promise
// recording each outcome, and returns the watch of its done.
func (f *fixture) produceDone(ctx context.Context, recs []Record) (*doneWatch, int, error) {
	w := f.watch(recs)
	n, err := f.p.ProduceBatchDone(ctx, ptrsOf(recs), f.promise, w.done)
	return w, n, err
}

// requireNotDone fails when done already ran.
func (w *doneWatch) requireNotDone(why string) {
	w.f.t.Helper()
	require.Zero(w.f.t, w.runs.Load(), "done ran %s", why)
}

// requireDoneAfterAll fails unless done ran exactly once, after every
// record of the call had its promise.
func (w *doneWatch) requireDoneAfterAll() {
	w.f.t.Helper()
	require.Equal(w.f.t, int32(1), w.runs.Load(), "done runs exactly once")
	w.mu.Lock()
	defer w.mu.Unlock()
	require.Empty(w.f.t, w.early, "records without their promise when done ran")
}

// TestProduceBatchDoneAfterEveryOutcome: done waits for every record the
// call took, whichever partition delivers or fails it and in whatever
// order, through a retry, and runs once, after the last promise; a record
// refused at once (an unknown partition) counts as soon as it is refused.
func TestProduceBatchDoneAfterEveryOutcome(t *testing.T) {
	f := newFixture(t, fixtureOptions{topics: map[string]int32{"t": 2}, config: recordsPerBatch(2)})
	recs := f.records("t", 7, func(i int, r *Record) { r.Partition = int32(i % 2) })
	recs[6].Partition = 9 // refused at once
	w, n, err := f.produceDone(context.Background(), recs)
	require.NoError(t, err)
	require.Equal(t, 7, n)
	require.ErrorIs(t, f.outcome(posOf(recs[6])).err, ErrNotSent)
	w.requireNotDone("before any batch completed")

	f.advance(testLinger)
	reqs := f.stepUntilProduce()
	answers := map[accumulator.TopicPartition]answer{
		tp("t", 0): success, tp("t", 1): errAnswer(protocol.ErrRequestTimedOut), // retried
	}
	for _, req := range reqs {
		f.respond(req, answers)
	}
	f.step()
	w.requireNotDone("with records of partition 1 retrying")
	for f.pending(posOf(recs[5])) {
		f.advance(testRetryBackoff)
		for _, req := range f.stepUntilProduce() {
			f.respond(req, map[accumulator.TopicPartition]answer{tp("t", 1): errAnswer(protocol.ErrInvalidRecord)})
		}
		f.step()
		if f.pending(posOf(recs[5])) {
			w.requireNotDone("with a batch of partition 1 pending")
		}
	}
	f.step()
	w.requireDoneAfterAll()
	for i, r := range recs[:6] {
		if i%2 == 0 {
			require.NoError(t, f.outcome(posOf(r)).err)
		} else {
			require.ErrorIs(t, f.outcome(posOf(r)).err, protocol.ErrInvalidRecord)
		}
	}
	f.requireExactlyOnce()
}

// TestProduceBatchDoneSplitBatch: two calls share a batch the broker
// refuses as too large; its split parts hold the records of both, and each
// call's done runs once the last part holding its records completed.
func TestProduceBatchDoneSplitBatch(t *testing.T) {
	f := newFixture(t, fixtureOptions{config: nonIdempotent})
	first := f.records("t", 1, func(_ int, r *Record) { r.Partition = 0 })
	second := f.records("t", 3, func(_ int, r *Record) { r.Partition = 0 })
	w1, _, err := f.produceDone(context.Background(), first)
	require.NoError(t, err)
	w2, _, err := f.produceDone(context.Background(), second)
	require.NoError(t, err)
	f.advance(testLinger)
	req := f.stepUntilProduce()[0]
	require.Len(t, f.batchFor(req, "t", 0).values, 4, "one batch for both calls")
	f.respondAll(req, errAnswer(protocol.ErrMessageTooLarge))
	halves := f.stepUntilProduceN(2)
	w1.requireNotDone("before its part completed")

	f.respondAll(halves[0], success) // first's record and second's first
	f.step()
	w1.requireDoneAfterAll()
	w2.requireNotDone("with two of its records in the second part")
	f.respondAll(halves[1], success)
	f.step()
	w2.requireDoneAfterAll()
	f.requireExactlyOnce()
}

// TestProduceBatchDoneSkipDeliveredPromises: delivered records get no
// promise, but done still waits for their batch, and for the promise of
// every failed record.
func TestProduceBatchDoneSkipDeliveredPromises(t *testing.T) {
	f := newFixture(t, fixtureOptions{topics: map[string]int32{"t": 2}, config: configs(recordsPerBatch(2),
		func(c *config) { c.SkipDeliveredPromises = true })})
	recs := f.records("t", 6, func(i int, r *Record) { r.Partition = int32(i % 2) })
	w, _, err := f.produceDone(context.Background(), recs)
	require.NoError(t, err)
	fail := map[accumulator.TopicPartition]answer{tp("t", 1): errAnswer(protocol.ErrInvalidRecord)}
	for {
		delivered, failed := f.p.acc.Outcomes()
		if delivered+failed == 6 {
			break
		}
		w.requireNotDone(fmt.Sprintf("with %d records completed", delivered+failed))
		f.advance(testLinger)
		for _, req := range f.stepUntilProduce() {
			f.respond(req, fail)
		}
		f.step()
	}
	require.Equal(t, int32(1), w.runs.Load(), "done runs exactly once")
	assert.Equal(t, int64(6), w.completed, "every record completed when done ran")
	for i, r := range recs {
		if i%2 == 1 {
			require.ErrorIs(t, f.outcome(posOf(r)).err, protocol.ErrInvalidRecord, "failed before done")
		} else {
			require.True(t, f.pending(posOf(r)), "a delivered record gets no promise")
		}
	}
	w.mu.Lock()
	assert.Len(t, w.early, 3, "only the delivered records had no promise")
	w.mu.Unlock()
}

// TestProduceBatchDoneClose: a producer closed with records in flight and
// queued fails them with ErrClosed, and the calls' done run once each;
// a call after Close takes nothing and runs done before it returns.
func TestProduceBatchDoneClose(t *testing.T) {
	f := newFixture(t, fixtureOptions{topics: map[string]int32{"t": 2}, config: recordsPerBatch(2)})
	inFlight := f.records("t", 2, func(_ int, r *Record) { r.Partition = 0 })
	wIn, _, err := f.produceDone(context.Background(), inFlight)
	require.NoError(t, err)
	f.stepUntilProduce() // never answered
	queued := f.records("t", 3, func(i int, r *Record) { r.Partition = int32(i % 2) })
	wQueued, _, err := f.produceDone(context.Background(), queued)
	require.NoError(t, err)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	go f.s.run()
	require.ErrorIs(t, f.p.Close(ctx), context.Canceled)
	for _, w := range []*doneWatch{wIn, wQueued} {
		waitUntil(t, "done", func() bool { return w.runs.Load() > 0 })
		w.requireDoneAfterAll()
		for _, p := range w.positions {
			require.ErrorIs(t, f.outcome(p).err, ErrClosed)
		}
	}

	late := []Record{{Topic: "t", Partition: 0, Opaque: Position{Source: 2, Record: 1}}}
	w, n, err := f.produceDone(context.Background(), late)
	require.ErrorIs(t, err, ErrClosed)
	require.Zero(t, n)
	require.Equal(t, int32(1), w.runs.Load(), "done before the call returned")
	f.requireExactlyOnce()
}

// TestProduceBatchDoneTakingNothing: when the call takes no record (all
// refused at once, an ended context), done runs before it returns, after
// the promises of the refused records.
func TestProduceBatchDoneTakingNothing(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	refused := f.records("t", 3, func(_ int, r *Record) { r.Partition = 5 })
	w, n, err := f.produceDone(context.Background(), refused)
	require.NoError(t, err)
	require.Equal(t, 3, n)
	w.requireDoneAfterAll()

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	// A topic to wait for: the ended context stops the call.
	stopped := []Record{{Topic: "other", Partition: -1, Opaque: Position{Source: 2, Record: 1}}}
	w, n, err = f.produceDone(ctx, stopped)
	require.ErrorIs(t, err, context.Canceled)
	require.Zero(t, n)
	require.Equal(t, int32(1), w.runs.Load(), "done before the call returned")
}

// TestProduceBatchDoneDryRun: a dry run's records complete during the call:
// done runs once, after their promises, before it returns.
func TestProduceBatchDoneDryRun(t *testing.T) {
	p := newDryProducer(t, 3, "murmur2")
	promised, runs := 0, 0
	recs := []*Record{{Topic: "t", Partition: -1, Value: []byte("a")}, {Topic: "t", Partition: 7, Value: []byte("b")}}
	n, err := p.ProduceBatchDone(context.Background(), recs, func(*Record, error) { promised++ },
		func() { runs++; assert.Equal(t, 2, promised, "done after every promise") })
	require.NoError(t, err)
	require.Equal(t, 2, n)
	require.Equal(t, 1, runs)
}

// TestProduceBatchDoneManyCalls: many calls from several goroutines, their
// records spread over partitions that deliver and one that fails, with the
// Sender on its own goroutine: every done runs exactly once, after every
// promise of its call (the calls' memory is recycled from call to call, so
// a record counted twice would end a later call early).
func TestProduceBatchDoneManyCalls(t *testing.T) {
	f := newFixture(t, fixtureOptions{topics: map[string]int32{"t": 4}, config: recordsPerBatch(3)})
	f.sel.AutoRespond(protocol.KeyProduce, func(req networktest.SentRequest) protocol.Response {
		return f.produceResponse(req, map[accumulator.TopicPartition]answer{tp("t", 3): errAnswer(protocol.ErrInvalidRecord)})
	})
	go f.s.run()
	const callers, calls = 4, 50
	watches := make([][]*doneWatch, callers)
	var wg sync.WaitGroup
	for c := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range calls {
				recs := f.records("t", 1+(c+k)%7, func(i int, r *Record) { r.Partition = int32((k + i) % 4) })
				w := f.watch(recs)
				watches[c] = append(watches[c], w)
				if _, err := f.p.ProduceBatchDone(context.Background(), ptrsOf(recs), f.promise, w.done); err != nil {
					t.Errorf("call %d of %d: %v", k, c, err)
				}
			}
		}()
	}
	wg.Wait()
	require.NoError(t, f.p.Close(context.Background())) // every outcome, and the Sender stopped
	for _, ws := range watches {
		for _, w := range ws {
			waitUntil(t, "done", func() bool { return w.runs.Load() > 0 })
			w.requireDoneAfterAll()
		}
	}
	f.requireExactlyOnce()
}

// TestProduceBatchDoneTransactionAborted: in a transaction that must
// abort, the records not sent yet fail with ErrTransactionAborted; each
// call's done runs once, after its records' promises, failed or not.
func TestProduceBatchDoneTransactionAborted(t *testing.T) {
	f, _ := newTxnFixture(t, fixtureOptions{topics: map[string]int32{"t": 2}}, nil)
	require.NoError(t, f.p.BeginTransaction())
	first := f.records("t", 2, func(i int, r *Record) { r.Partition = int32(i) })
	w1, _, err := f.produceDone(context.Background(), first)
	require.NoError(t, err)
	f.advance(testLinger)
	req := f.stepUntilProduce()[0]
	late := f.records("t", 3, func(_ int, r *Record) { r.Partition = 0 })
	w2, _, err := f.produceDone(context.Background(), late)
	require.NoError(t, err)
	f.respond(req, map[accumulator.TopicPartition]answer{tp("t", 1): errAnswer(protocol.ErrInvalidRecord)})
	f.step()
	f.step()
	w1.requireDoneAfterAll()
	require.NoError(t, stepUntil(f, f.endAsync(false), 0))
	w2.requireDoneAfterAll()
	for _, r := range late {
		require.ErrorIs(t, f.outcome(posOf(r)).err, ErrTransactionAborted)
	}
	f.requireExactlyOnce()
}
