package sender

import (
	"context"
	"fmt"
)

// BeginTransaction opens a transaction: the records sent until
// CommitTransaction or AbortTransaction belong to it. The producer must be
// transactional (Config.TransactionalID) and have no transaction open.
// Like Kafka's beginTransaction it does not wait for the broker: the
// producer id, the coordinator and the partitions are settled as records
// are sent.
func (p *Producer) BeginTransaction() error {
	tm := p.sender.txn
	if tm == nil {
		return fmt.Errorf("%w: the producer has no transactional id", ErrTransactionState)
	}
	if err := p.sender.fatalError(); err != nil {
		return err
	}
	if !tm.open.CompareAndSwap(false, true) {
		return fmt.Errorf("%w: a transaction is already open", ErrTransactionState)
	}
	tm.post(txnCommand{kind: txnBegin})
	p.client.Wakeup()
	return nil
}

// CommitTransaction flushes the open transaction's records and commits
// it. When one of its records failed, it returns an error wrapping
// ErrTransactionAbortable and the first failure, and the transaction stays
// open: the caller must call AbortTransaction. A fenced producer or a
// refused transactional id returns the producer's fatal error. When ctx
// ends first, the commit's outcome is unknown.
func (p *Producer) CommitTransaction(ctx context.Context) error {
	if err := p.checkTransactionOpen(); err != nil {
		return err
	}
	if err := p.Flush(ctx); err != nil {
		return fmt.Errorf("commit transaction: %w", err)
	}
	return p.endTransaction(ctx, txnCommit)
}

// AbortTransaction aborts the open transaction: records not sent yet fail
// with ErrTransactionAborted, records in flight get their answers, then
// the coordinator aborts what was written. When ctx ends first, the
// coordinator aborts the transaction at its timeout.
func (p *Producer) AbortTransaction(ctx context.Context) error {
	if err := p.checkTransactionOpen(); err != nil {
		return err
	}
	return p.endTransaction(ctx, txnAbort)
}

// checkTransactionOpen returns an error unless a transaction is open.
func (p *Producer) checkTransactionOpen() error {
	tm := p.sender.txn
	switch {
	case tm == nil:
		return fmt.Errorf("%w: the producer has no transactional id", ErrTransactionState)
	case !tm.open.Load():
		return fmt.Errorf("%w: no transaction open", ErrTransactionState)
	}
	return p.sender.fatalError()
}

// endTransaction asks the Sender to commit or abort and waits for the
// outcome.
func (p *Producer) endTransaction(ctx context.Context, kind txnCommandKind) error {
	verb := "commit"
	if kind == txnAbort {
		verb = "abort"
	}
	result, taken := make(chan error, 1), make(chan struct{})
	p.sender.txn.post(txnCommand{kind: kind, result: result, taken: taken})
	p.client.Wakeup()
	// The Sender applies a command within one turn. Its decision is awaited
	// even past ctx: an abort must learn that a commit was already sent
	// (ErrTransactionOutcomeUnknown) however late it comes.
	select {
	case <-taken:
	case <-p.sender.stopped:
		return p.sender.fatalError()
	case <-p.sender.done:
		return fmt.Errorf("%s transaction: %w", verb, ErrClosed)
	}
	select {
	case err := <-result:
		if err != nil {
			return fmt.Errorf("%s transaction: %w", verb, err)
		}
		return nil
	default:
	}
	select {
	case err := <-result:
		if err != nil {
			return fmt.Errorf("%s transaction: %w", verb, err)
		}
		return nil
	case <-p.sender.stopped:
		return p.sender.fatalError()
	case <-p.sender.done:
		return fmt.Errorf("%s transaction: %w", verb, ErrClosed)
	case <-ctx.Done():
		return fmt.Errorf("%s transaction: %w", verb, ctx.Err())
	}
}
