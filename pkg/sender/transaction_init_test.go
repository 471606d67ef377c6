package sender

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// initAsync runs InitTransactions on its own goroutine.
func (f *fixture) initAsync(ctx context.Context) <-chan error {
	done := make(chan error, 1)
	go func() { done <- f.p.InitTransactions(ctx) }()
	return done
}

// TestInitTransactionsWaitsForTheProducerID: InitTransactions returns once
// the coordinator handed out the producer id, after the retries of a
// coordinator still completing the earlier producer's transaction; no
// record was sent before.
func TestInitTransactionsWaitsForTheProducerID(t *testing.T) {
	f, _ := newTxnFixture(t, fixtureOptions{manualInit: true}, func(sc *txnScript) {
		sc.push(protocol.KeyInitProducerId, initAnswer(protocol.ErrConcurrentTransactions), initAnswer(protocol.ErrConcurrentTransactions))
	})
	require.NoError(t, stepUntil(f, f.initAsync(context.Background()), testLinger))
	assert.Len(t, f.sentOf(protocol.KeyInitProducerId), 3)
	assert.Equal(t, []protocol.APIKey{protocol.KeyFindCoordinator, protocol.KeyInitProducerId,
		protocol.KeyInitProducerId, protocol.KeyInitProducerId}, f.txnKeys())
	require.NoError(t, f.p.InitTransactions(context.Background()), "a second call returns at once")
}

func TestInitTransactionsFailures(t *testing.T) {
	t.Run("fenced", func(t *testing.T) {
		f, _ := newTxnFixture(t, fixtureOptions{manualInit: true}, func(sc *txnScript) {
			sc.push(protocol.KeyInitProducerId, initAnswer(protocol.ErrTransactionalIdAuthorizationFailed))
		})
		err := stepUntil(f, f.initAsync(context.Background()), testLinger)
		assert.ErrorIs(t, err, protocol.ErrTransactionalIdAuthorizationFailed)
	})
	t.Run("context ends", func(t *testing.T) {
		f, _ := newTxnFixture(t, fixtureOptions{manualInit: true}, func(sc *txnScript) {
			for range 50 {
				sc.push(protocol.KeyInitProducerId, initAnswer(protocol.ErrConcurrentTransactions))
			}
		})
		ctx, cancel := context.WithCancel(context.Background())
		done := f.initAsync(ctx)
		f.step()
		cancel()
		err := <-done
		assert.ErrorIs(t, err, context.Canceled)
		assert.ErrorContains(t, err, "no producer id from the transaction coordinator")
	})
	t.Run("not transactional", func(t *testing.T) {
		f := newFixture(t, fixtureOptions{})
		assert.ErrorIs(t, f.p.InitTransactions(context.Background()), ErrTransactionState)
	})
}

// TestTransactionNewPartitionAddedInTheNextTurn: a batch of a partition
// not in the transaction yet, found when draining, makes the turn poll
// without waiting, so its AddPartitionsToTxn goes out in the next turn
// instead of after the poll timeout (nothing else would wake the Sender:
// no request is in flight at the start of a transaction).
func TestTransactionNewPartitionAddedInTheNextTurn(t *testing.T) {
	f, _ := newTxnFixture(t, fixtureOptions{}, nil)
	f.autoProduce()
	require.NoError(t, f.p.BeginTransaction())
	f.send("t", 0)
	f.advance(testLinger)
	polls := len(f.sel.PollTimeouts())
	f.step()
	timeouts := f.sel.PollTimeouts()[polls:]
	require.NotEmpty(t, timeouts)
	assert.Zero(t, timeouts[len(timeouts)-1], "the turn that found the partition does not wait")
	assert.Empty(t, f.sentOf(protocol.KeyAddPartitionsToTxn), "not in the same turn")
	f.step()
	assert.Len(t, f.sentOf(protocol.KeyAddPartitionsToTxn), 1, "the next turn adds it")
}
