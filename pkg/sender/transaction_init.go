package sender

import (
	"context"
	"fmt"
)

// InitTransactions waits until the transactional producer has its
// producer id (Kafka's initTransactions). The coordinator hands it out
// only once it has fenced every earlier producer with the same
// transactional id and completed that producer's last transaction:
// committed if its commit had been decided, aborted otherwise, with the
// markers written to every partition of it. So after InitTransactions a
// read_committed read sees exactly what the earlier producers committed.
// The producer fetches its id by itself; calling InitTransactions is
// needed only to wait for that point.
func (p *Producer) InitTransactions(ctx context.Context) error {
	tm := p.sender.txn
	if tm == nil {
		return fmt.Errorf("%w: the producer has no transactional id", ErrTransactionState)
	}
	p.client.Wakeup()
	select {
	case <-tm.ready:
		return nil
	case <-p.sender.stopped:
		return p.sender.fatalError()
	case <-p.sender.done:
		return fmt.Errorf("init transactions: %w", ErrClosed)
	case <-ctx.Done():
		if err := p.md.LastError(); err != nil {
			return fmt.Errorf("init transactions: no producer id from the transaction coordinator: %w (%w)", ctx.Err(), err)
		}
		return fmt.Errorf("init transactions: no producer id from the transaction coordinator: %w", ctx.Err())
	}
}

// markReady records that a producer id was installed. Sender goroutine
// only.
func (tm *transactionManager) markReady() {
	select {
	case <-tm.ready:
	default:
		close(tm.ready)
	}
}
