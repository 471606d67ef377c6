package sender

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/accumulator"
	"github.com/kproduce/kproduce/pkg/network/networktest"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// TestTransactionCommitRequestOrder: FindCoordinator, InitProducerId with
// the transactional id, one AddPartitionsToTxn for every partition of the
// turn, Produce with the transactional bit and id, then EndTxn(commit);
// records are delivered with their offsets.
func TestTransactionCommitRequestOrder(t *testing.T) {
	f, _ := newTxnFixture(t, fixtureOptions{topics: map[string]int32{"t": 2}}, nil)
	f.autoProduce()
	require.NoError(t, f.p.BeginTransaction())
	positions := []Position{f.send("t", 0), f.send("t", 1), f.send("t", 0)}
	require.NoError(t, stepUntil(f, f.endAsync(true), testLinger))

	assert.Equal(t, []protocol.APIKey{protocol.KeyFindCoordinator, protocol.KeyInitProducerId,
		protocol.KeyAddPartitionsToTxn, protocol.KeyProduce, protocol.KeyEndTxn}, f.txnKeys())
	fc := f.sentOf(protocol.KeyFindCoordinator)[0].Body.(*protocol.FindCoordinatorRequest)
	assert.Equal(t, protocol.CoordinatorKeyTypeTransaction, fc.KeyType)
	assert.Equal(t, []string{testTransactionalID}, fc.CoordinatorKeys)
	init := f.sentOf(protocol.KeyInitProducerId)[0].Body.(*protocol.InitProducerIdRequest)
	require.NotNil(t, init.TransactionalID)
	assert.Equal(t, testTransactionalID, *init.TransactionalID)
	assert.Equal(t, int32(60_000), init.TransactionTimeoutMs)

	add := f.sentOf(protocol.KeyAddPartitionsToTxn)[0].Body.(*protocol.AddPartitionsToTxnRequest)
	assert.Equal(t, testTransactionalID, add.TransactionalID)
	assert.Equal(t, firstProducerID, add.ProducerID)
	require.Len(t, add.Topics, 1)
	assert.ElementsMatch(t, []int32{0, 1}, add.Topics[0].Partitions)

	produce := f.allProduce()[0]
	require.NotNil(t, produce.Body.(*protocol.ProduceRequest).TransactionalID)
	assert.Equal(t, testTransactionalID, *produce.Body.(*protocol.ProduceRequest).TransactionalID)
	for _, b := range f.batches(produce) {
		assert.NotZero(t, b.batch.Attributes&0x10, "transactional bit of %v", b.tp)
		assert.Equal(t, firstProducerID, b.batch.ProducerID)
	}
	end := f.sentOf(protocol.KeyEndTxn)[0].Body.(*protocol.EndTxnRequest)
	assert.Equal(t, protocol.EndTxnRequest{TransactionalID: testTransactionalID, ProducerID: firstProducerID, ProducerEpoch: 0, Committed: true}, *end)

	assert.Equal(t, int64(0), f.outcome(positions[0]).offset)
	assert.Equal(t, int64(1), f.outcome(positions[2]).offset)
	assert.Equal(t, int64(0), f.outcome(positions[1]).offset)
	f.requireExactlyOnce()
}

// TestTransactionPartitionsAddedOncePerTransaction: a partition is added
// once in a transaction, and again in the next one.
func TestTransactionPartitionsAddedOncePerTransaction(t *testing.T) {
	f, _ := newTxnFixture(t, fixtureOptions{}, nil)
	f.autoProduce()
	require.NoError(t, f.p.BeginTransaction())
	f.send("t", 0)
	f.advance(testLinger)
	f.stepUntilProduce()
	f.send("t", 0)
	f.advance(testLinger)
	f.stepUntilProduce()
	require.NoError(t, stepUntil(f, f.endAsync(true), testLinger))
	assert.Len(t, f.sentOf(protocol.KeyAddPartitionsToTxn), 1)

	require.NoError(t, f.p.BeginTransaction())
	f.send("t", 0)
	require.NoError(t, stepUntil(f, f.endAsync(true), testLinger))
	assert.Len(t, f.sentOf(protocol.KeyAddPartitionsToTxn), 2, "a new transaction adds its partitions again")
	assert.Len(t, f.sentOf(protocol.KeyEndTxn), 2)
	assert.Len(t, f.sentOf(protocol.KeyFindCoordinator), 1, "the coordinator is remembered")
	f.requireExactlyOnce()
}

// TestTransactionNothingSentUntilAdded: a batch waits for its partition's
// AddPartitionsToTxn answer.
func TestTransactionNothingSentUntilAdded(t *testing.T) {
	f, sc := newTxnFixture(t, fixtureOptions{}, nil)
	held := make(chan struct{})
	sc.push(protocol.KeyAddPartitionsToTxn, func(networktest.SentRequest) protocol.Response { close(held); return nil })
	require.NoError(t, f.p.BeginTransaction())
	f.send("t", 0)
	f.advance(testLinger)
	f.requireNoProduce("the partition is not added yet")
	adds := f.sentOf(protocol.KeyAddPartitionsToTxn)
	require.Len(t, adds, 1)
	<-held
	f.sel.RespondTo(adds[0], addPartitionsAnswer(nil)(adds[0]))
	f.stepUntilProduce()
}

// TestTransactionEmptyCommitSendsNothing: a transaction without records
// ends without a request.
func TestTransactionEmptyCommitSendsNothing(t *testing.T) {
	f, _ := newTxnFixture(t, fixtureOptions{}, nil)
	require.NoError(t, f.p.BeginTransaction())
	require.NoError(t, stepUntil(f, f.endAsync(true), 0))
	require.NoError(t, f.p.BeginTransaction())
	require.NoError(t, stepUntil(f, f.endAsync(false), 0))
	assert.Empty(t, f.sentOf(protocol.KeyEndTxn))
	assert.Empty(t, f.sentOf(protocol.KeyAddPartitionsToTxn))
}

// TestTransactionCoordinatorErrorsRetried: retriable coordinator errors
// are retried after the backoff, and nothing is resent before it.
func TestTransactionCoordinatorErrorsRetried(t *testing.T) {
	f, _ := newTxnFixture(t, fixtureOptions{manualInit: true}, func(sc *txnScript) {
		sc.push(protocol.KeyFindCoordinator, findCoordinatorAnswer(-1, protocol.ErrCoordinatorNotAvailable))
		sc.push(protocol.KeyInitProducerId, initAnswer(protocol.ErrCoordinatorLoadInProgress), initAnswer(protocol.ErrConcurrentTransactions))
	})
	stepsFor := func(key protocol.APIKey, n int) {
		t.Helper()
		for i := 0; i < 5 && len(f.sentOf(key)) < n; i++ {
			f.step()
		}
		require.Len(t, f.sentOf(key), n, "%s requests", key)
		for i := 0; i < 3; i++ {
			f.step() // the clock stands still: no retry before the backoff
		}
		require.Len(t, f.sentOf(key), n, "%s retried before the backoff", key)
	}
	stepsFor(protocol.KeyFindCoordinator, 1)
	f.advance(testRetryBackoff)
	stepsFor(protocol.KeyFindCoordinator, 2)
	stepsFor(protocol.KeyInitProducerId, 1)
	f.advance(2 * testRetryBackoff) // the second failure doubles the backoff
	stepsFor(protocol.KeyInitProducerId, 2)
	f.advance(concurrentTransactionsBackoff)
	for i := 0; i < 5 && !f.s.idem.pid.valid(); i++ {
		f.step()
	}
	require.True(t, f.s.idem.pid.valid())
	assert.Len(t, f.sentOf(protocol.KeyInitProducerId), 3)
	assert.Nil(t, f.p.FatalError())
}

// TestTransactionNotCoordinatorFindsItAgain: NOT_COORDINATOR makes the
// producer look the coordinator up again and resend to the new one.
func TestTransactionNotCoordinatorFindsItAgain(t *testing.T) {
	f, sc := newTxnFixture(t, fixtureOptions{brokers: 2}, nil)
	f.autoProduce()
	sc.push(protocol.KeyAddPartitionsToTxn, addPartitionsAnswer(protocol.ErrNotCoordinator))
	sc.setCoordinator(2)
	require.NoError(t, f.p.BeginTransaction())
	pos := f.send("t", 0)
	require.NoError(t, stepUntil(f, f.endAsync(true), testLinger))

	adds := f.sentOf(protocol.KeyAddPartitionsToTxn)
	require.Len(t, adds, 2)
	assert.Equal(t, int32(1), adds[0].Node)
	assert.Equal(t, int32(2), adds[1].Node, "resent to the new coordinator")
	assert.Len(t, f.sentOf(protocol.KeyFindCoordinator), 2)
	assert.Equal(t, int32(2), f.sentOf(protocol.KeyEndTxn)[0].Node)
	require.NoError(t, f.outcome(pos).err)
}

// TestTransactionAbortAfterFailedBatch: a failed batch makes the commit
// fail with the batch's error; the abort fails what was not sent, sends
// EndTxn(abort) once nothing is in flight, and fetches the producer id
// again (a new epoch) for the next transaction.
func TestTransactionAbortAfterFailedBatch(t *testing.T) {
	f, _ := newTxnFixture(t, fixtureOptions{topics: map[string]int32{"t": 2}}, nil)
	require.NoError(t, f.p.BeginTransaction())
	ok, bad := f.send("t", 0), f.send("t", 1)
	f.advance(testLinger)
	req := f.stepUntilProduce()[0]
	late := f.send("t", 0)
	f.respond(req, map[accumulator.TopicPartition]answer{tp("t", 1): errAnswer(protocol.ErrInvalidRecord)})
	f.step()
	f.step()
	require.ErrorIs(t, f.outcome(bad).err, protocol.ErrInvalidRecord)
	require.ErrorIs(t, f.outcome(late).err, ErrTransactionAborted, "not sent once the transaction must abort")

	err := stepUntil(f, f.endAsync(true), 0)
	require.ErrorIs(t, err, ErrTransactionAbortable)
	require.ErrorIs(t, err, protocol.ErrInvalidRecord)
	assert.Empty(t, f.sentOf(protocol.KeyEndTxn), "no commit")

	require.NoError(t, stepUntil(f, f.endAsync(false), 0))
	ends := f.sentOf(protocol.KeyEndTxn)
	require.Len(t, ends, 1)
	assert.False(t, ends[0].Body.(*protocol.EndTxnRequest).Committed)
	require.NoError(t, f.outcome(ok).err, "acknowledged by the broker; the abort makes it invisible")
	f.requireExactlyOnce()

	for i := 0; i < 5 && len(f.sentOf(protocol.KeyInitProducerId)) < 2; i++ {
		f.step()
	}
	inits := f.sentOf(protocol.KeyInitProducerId)
	require.Len(t, inits, 2, "a new epoch after the abort")
	assert.Equal(t, firstProducerID, inits[1].Body.(*protocol.InitProducerIdRequest).ProducerID)
}

// TestTransactionAbortWaitsForInFlight: EndTxn(abort) goes out only once
// the Produce request in flight has its answer.
func TestTransactionAbortWaitsForInFlight(t *testing.T) {
	f, _ := newTxnFixture(t, fixtureOptions{}, nil)
	require.NoError(t, f.p.BeginTransaction())
	pos := f.send("t", 0)
	f.advance(testLinger)
	req := f.stepUntilProduce()[0]
	done := f.endAsync(false)
	waitUntil(t, "the abort to be posted", func() bool {
		f.s.txn.mu.Lock()
		defer f.s.txn.mu.Unlock()
		return len(f.s.txn.commands) > 0
	})
	for i := 0; i < 3; i++ {
		f.step()
	}
	assert.Empty(t, f.sentOf(protocol.KeyEndTxn), "a produce request is in flight")
	f.respondAll(req, success)
	require.NoError(t, stepUntil(f, done, 0))
	assert.Len(t, f.sentOf(protocol.KeyEndTxn), 1)
	require.NoError(t, f.outcome(pos).err)
}

// TestTransactionFencingIsFatal: PRODUCER_FENCED or INVALID_PRODUCER_EPOCH
// on a transactional Produce, and on EndTxn, stop the producer with a
// clear error.
func TestTransactionFencingIsFatal(t *testing.T) {
	for _, e := range []*protocol.Error{protocol.ErrProducerFenced, protocol.ErrInvalidProducerEpoch} {
		t.Run("produce "+e.Name, func(t *testing.T) {
			f, _ := newTxnFixture(t, fixtureOptions{}, nil)
			require.NoError(t, f.p.BeginTransaction())
			pos := f.send("t", 0)
			f.advance(testLinger)
			f.respondAll(f.stepUntilProduce()[0], errAnswer(e))
			f.step()
			require.ErrorIs(t, f.outcome(pos).err, e)
			err := f.p.FatalError()
			require.ErrorIs(t, err, e)
			assert.Contains(t, err.Error(), `producer fenced: another producer uses transactional id "txn-1"`)
			assert.ErrorIs(t, f.p.CommitTransaction(context.Background()), e)
			assert.Empty(t, f.sentOf(protocol.KeyEndTxn))
		})
		t.Run("end "+e.Name, func(t *testing.T) {
			f, sc := newTxnFixture(t, fixtureOptions{}, nil)
			f.autoProduce()
			sc.push(protocol.KeyEndTxn, endTxnAnswer(e))
			require.NoError(t, f.p.BeginTransaction())
			f.send("t", 0)
			err := stepUntil(f, f.endAsync(true), testLinger)
			require.ErrorIs(t, err, e)
			assert.Contains(t, err.Error(), "producer fenced")
			assert.Len(t, f.sentOf(protocol.KeyEndTxn), 1, "not retried")
		})
	}
}

// TestTransactionalIDAuthorizationIsFatal: a refused transactional id
// stops the producer before anything is produced.
func TestTransactionalIDAuthorizationIsFatal(t *testing.T) {
	f, _ := newTxnFixture(t, fixtureOptions{manualInit: true}, func(sc *txnScript) {
		sc.push(protocol.KeyFindCoordinator, findCoordinatorAnswer(-1, protocol.ErrTransactionalIdAuthorizationFailed))
	})
	for i := 0; i < 5 && f.p.FatalError() == nil; i++ {
		f.step()
	}
	err := f.p.FatalError()
	require.ErrorIs(t, err, protocol.ErrTransactionalIdAuthorizationFailed)
	assert.Contains(t, err.Error(), `not authorized to use transactional id "txn-1"`)
	assert.Empty(t, f.sentOf(protocol.KeyInitProducerId))
}

// TestTransactionStateErrors: records only inside a transaction, one
// transaction at a time, and transactions only with a transactional id.
func TestTransactionStateErrors(t *testing.T) {
	f, _ := newTxnFixture(t, fixtureOptions{}, nil)
	err := f.produce(context.Background(), &Record{Topic: "t", Partition: 0}, f.position())
	assert.ErrorIs(t, err, ErrTransactionState)
	assert.ErrorIs(t, f.p.CommitTransaction(context.Background()), ErrTransactionState)
	assert.ErrorIs(t, f.p.AbortTransaction(context.Background()), ErrTransactionState)
	require.NoError(t, f.p.BeginTransaction())
	assert.ErrorIs(t, f.p.BeginTransaction(), ErrTransactionState)

	plain := newFixture(t, fixtureOptions{})
	assert.ErrorIs(t, plain.p.BeginTransaction(), ErrTransactionState)

	cfg := testConfig()
	cfg.TransactionalID, cfg.Idempotence = "x", false
	assert.ErrorIs(t, cfg.validate(), ErrConfig)
	cfg.Idempotence, cfg.TransactionTimeout = true, 0
	assert.ErrorIs(t, cfg.validate(), ErrConfig)
}

// TestTransactionAbortAfterCommitSentIsUnknown: once EndTxn(commit) is
// sent, an abort cannot undo it: AbortTransaction says the outcome is
// unknown and sends no EndTxn(abort).
func TestTransactionAbortAfterCommitSentIsUnknown(t *testing.T) {
	f, _ := newTxnFixture(t, fixtureOptions{}, nil)
	f.autoProduce()
	f.sel.AutoRespond(protocol.KeyEndTxn, nil) // the coordinator never answers
	require.NoError(t, f.p.BeginTransaction())
	pos := f.send("t", 0)
	ctx, cancel := context.WithCancel(context.Background())
	committed := make(chan error, 1)
	go func() { committed <- f.p.CommitTransaction(ctx) }()
	// The commit runs on its own goroutine, which a busy machine may start
	// late: the clock moves only for the first turns (the linger), then
	// the Sender is stepped until EndTxn goes, within a safety bound.
	deadline := time.Now().Add(10 * time.Second)
	for i := 0; len(f.sentOf(protocol.KeyEndTxn)) == 0; i++ {
		require.True(t, time.Now().Before(deadline), "EndTxn(commit) never sent")
		if i < 100 {
			f.advance(testLinger)
		}
		f.step()
		runtime.Gosched()
	}
	require.NoError(t, f.outcome(pos).err, "the record was acknowledged before the commit")
	cancel()
	require.ErrorIs(t, <-committed, context.Canceled)
	err := stepUntil(f, f.endAsync(false), 0)
	require.ErrorIs(t, err, ErrTransactionOutcomeUnknown)
	ends := f.sentOf(protocol.KeyEndTxn)
	require.Len(t, ends, 1, "no EndTxn(abort) after a commit was sent")
	assert.True(t, ends[0].Body.(*protocol.EndTxnRequest).Committed)
}
