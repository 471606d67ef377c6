package sender

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kproduce/kproduce/pkg/accumulator"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// ErrTransactionState is wrapped when a transaction method is called in a
// state that does not allow it (a second BeginTransaction, a commit with no
// transaction open, a record sent outside a transaction).
var ErrTransactionState = errors.New("invalid transaction state")

// ErrTransactionAbortable is wrapped by CommitTransaction when a record of
// the transaction failed: the transaction can only be aborted.
var ErrTransactionAbortable = errors.New("the transaction cannot be committed")

// ErrTransactionOutcomeUnknown is returned by AbortTransaction when a
// commit was already sent to the coordinator and not answered: it may have
// been committed, and an abort can no longer undo it.
var ErrTransactionOutcomeUnknown = errors.New("transaction outcome unknown")

// ErrTransactionAborted is wrapped by the outcome of records failed because
// their transaction was aborted before they were sent.
var ErrTransactionAborted = errors.New("transaction aborted")

// transactionState is the state of a transactional producer (Kafka's
// TransactionManager.State, without the fatal state: a fatal error stops
// the whole producer, see Sender.setFatal).
type transactionState int

const (
	txnReady          transactionState = iota // no transaction open
	txnInTransaction                          // records are sent
	txnCommitting                             // flushing, then EndTxn(commit)
	txnAborting                               // failing what is queued, then EndTxn(abort)
	txnAbortableError                         // a record failed: only an abort can follow
)

// txnCommandKind is what the Producer facade asks the Sender to do.
type txnCommandKind int

const (
	txnBegin txnCommandKind = iota
	txnCommit
	txnAbort
)

// txnCommand is a request of the facade; result (buffered) receives the
// outcome of a commit or an abort, and taken (when not nil) is closed once
// the Sender has applied the command.
type txnCommand struct {
	kind   txnCommandKind
	result chan error
	taken  chan struct{}
}

// transactionManager is the transactional half of Kafka's
// TransactionManager (the idempotent half is idempotence). The Producer
// facade posts commands; everything else is owned by the Sender goroutine.
type transactionManager struct {
	transactionalID string // immutable
	timeoutMs       int32  // immutable

	// ready is closed by the Sender once the first producer id is
	// installed (see InitTransactions).
	ready chan struct{}
	// newPending is set by the drain veto when it queues a partition for
	// AddPartitionsToTxn (Sender goroutine).
	newPending bool

	open     atomic.Bool  // the facade's view: a transaction is open (set by BeginTransaction, cleared when it ends)
	mu       sync.Mutex   // guards commands
	commands []txnCommand // posted by the facade, taken by the Sender

	// Owned by the Sender goroutine.
	state        transactionState
	lastErr      error       // the first failure of the open transaction
	end          *txnCommand // the commit or abort being completed
	coordinator  int32       // the transaction coordinator, -1 when unknown
	inFlight     bool        // a transactional request is in flight (one at a time, as in Kafka)
	commitSent   bool        // EndTxn(commit) was sent for the open transaction: it may be committed
	backoffUntil time.Time
	failures     int
	lastPID      producerIDAndEpoch                      // the producer id before a re-initialization (KIP-360)
	partitions   map[accumulator.TopicPartition]struct{} // added to the open transaction
	pending      map[accumulator.TopicPartition]struct{} // to add before their batches may be sent
}

func newTransactionManager(cfg *config) *transactionManager {
	if cfg.TransactionalID == "" {
		return nil
	}
	return &transactionManager{
		transactionalID: cfg.TransactionalID,
		timeoutMs:       int32(cfg.TransactionTimeout.Milliseconds()),
		ready:           make(chan struct{}),
		coordinator:     -1,
		lastPID:         noProducerID,
		partitions:      make(map[accumulator.TopicPartition]struct{}),
		pending:         make(map[accumulator.TopicPartition]struct{}),
	}
}

// post queues a command of the facade.
func (tm *transactionManager) post(cmd txnCommand) {
	tm.mu.Lock()
	tm.commands = append(tm.commands, cmd)
	tm.mu.Unlock()
}

// take returns and clears the queued commands.
func (tm *transactionManager) take() []txnCommand {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	cmds := tm.commands
	tm.commands = nil
	return cmds
}

// canSend is the drain veto of a transactional producer: a batch is sent
// only while a transaction is open and not ending in an abort, and only
// once its partition was added to the transaction. A partition not yet
// added is queued for the next AddPartitionsToTxn, which carries every
// partition queued meanwhile.
func (tm *transactionManager) canSend(tp accumulator.TopicPartition) bool {
	if tm.state != txnInTransaction && tm.state != txnCommitting {
		return false
	}
	if _, ok := tm.partitions[tp]; ok {
		return true
	}
	if _, ok := tm.pending[tp]; !ok {
		tm.pending[tp] = struct{}{}
		tm.newPending = true
	}
	return false
}

// takeNewPending reports whether a partition was queued for adding since
// the last call: the next turn must not wait to send AddPartitionsToTxn.
func (tm *transactionManager) takeNewPending() bool {
	n := tm.newPending
	tm.newPending = false
	return n
}

// started reports whether the coordinator knows of the open transaction:
// a partition was added to it.
func (tm *transactionManager) started() bool { return len(tm.partitions) > 0 }

// abortable records that the open transaction can no longer commit. A
// commit waiting for its EndTxn learns it at once.
func (tm *transactionManager) abortable(err error) {
	if tm.lastErr == nil {
		tm.lastErr = err
	}
	switch tm.state {
	case txnInTransaction:
		tm.state = txnAbortableError
	case txnCommitting:
		tm.state = txnAbortableError
		tm.reply(tm.commitError())
	}
}

// commitError is the error of a commit after a failure.
func (tm *transactionManager) commitError() error {
	return fmt.Errorf("%w: %w", ErrTransactionAbortable, tm.lastErr)
}

// reply completes the commit or abort being processed.
func (tm *transactionManager) reply(err error) {
	if tm.end != nil {
		tm.end.result <- err
		tm.end = nil
	}
}

// complete ends the transaction: the coordinator wrote its markers, or it
// never knew of it.
func (tm *transactionManager) complete() {
	clear(tm.partitions)
	clear(tm.pending)
	tm.lastErr = nil
	tm.commitSent = false
	tm.state = txnReady
	tm.open.Store(false)
	tm.reply(nil)
}

// retryLater backs off before the next transactional request.
func (tm *transactionManager) retryLater(cfg *config, now time.Time, backoff time.Duration) time.Duration {
	tm.failures++
	if backoff <= 0 {
		backoff = cfg.Accumulator.RetryBackoff << min(tm.failures-1, 10)
		backoff = min(backoff, cfg.Accumulator.RetryBackoffMax)
	}
	tm.backoffUntil = now.Add(backoff)
	return backoff
}

// isFencingError reports errors that mean another producer took over the
// transactional id, or this one may not use it: nothing can continue.
func isFencingError(err error) bool {
	return errors.Is(err, protocol.ErrProducerFenced) || errors.Is(err, protocol.ErrInvalidProducerEpoch) ||
		errors.Is(err, protocol.ErrTransactionalIdAuthorizationFailed) || errors.Is(err, protocol.ErrTransactionCoordinatorFenced)
}

// fatalError explains a fatal transactional error.
func (tm *transactionManager) fatalError(what string, err error) error {
	switch {
	case errors.Is(err, protocol.ErrProducerFenced), errors.Is(err, protocol.ErrInvalidProducerEpoch),
		errors.Is(err, protocol.ErrTransactionCoordinatorFenced):
		return fmt.Errorf("producer fenced: another producer uses transactional id %q (%s: %w)", tm.transactionalID, what, err)
	case errors.Is(err, protocol.ErrTransactionalIdAuthorizationFailed):
		return fmt.Errorf("not authorized to use transactional id %q: grant Write and Describe on it (%s: %w)", tm.transactionalID, what, err)
	}
	return fmt.Errorf("transactional id %q: %s: %w", tm.transactionalID, what, err)
}
