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
