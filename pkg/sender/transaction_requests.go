package sender

import (
	"errors"
	"fmt"
	"time"

	"github.com/kproduce/kproduce/pkg/accumulator"
	"github.com/kproduce/kproduce/pkg/network"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// concurrentTransactionsBackoff is the short backoff after
// CONCURRENT_TRANSACTIONS: the coordinator is finishing the previous
// transaction's markers, which takes milliseconds (Kafka uses 20 ms too).
const concurrentTransactionsBackoff = 20 * time.Millisecond

// txnAttachment marks the response of a transactional request.
type txnAttachment struct{}

// maybeSendTransactionalRequest runs the transactional side of a turn: it
// takes the facade's commands, fails what is queued once the transaction
// must abort, and sends the next transactional request (FindCoordinator,
// InitProducerId, AddPartitionsToTxn, EndTxn), one at a time. It returns
// how long the next poll may wait.
func (s *sender) maybeSendTransactionalRequest(now time.Time) time.Duration {
	tm := s.txn
	for _, cmd := range tm.take() {
		s.handleTxnCommand(cmd)
		if cmd.taken != nil {
			close(cmd.taken)
		}
	}
	if tm.state == txnAborting || tm.state == txnAbortableError {
		s.abortUndrainedBatches()
	}
	if tm.end != nil && !tm.started() && !tm.inFlight && s.batchesSettled() {
		tm.complete() // nothing reached the coordinator: nothing to end
	}
	if tm.inFlight {
		return maxPollTimeout
	}
	if now.Before(tm.backoffUntil) {
		return tm.backoffUntil.Sub(now)
	}
	req := s.nextTxnRequest()
	if req == nil {
		return maxPollTimeout
	}
	node, wait, ok := s.txnDestination(req, now)
	if !ok {
		return wait
	}
	cr := s.client.NewClientRequest(node, req, now, true, s.cfg.RequestTimeout, txnAttachment{})
	if err := s.client.Send(cr, now); err != nil {
		return tm.retryLater(s.cfg, now, 0)
	}
	tm.inFlight = true
	if end, ok := req.(*protocol.EndTxnRequest); ok && end.Committed {
		tm.commitSent = true
	}
	return maxPollTimeout
}

// handleTxnCommand applies a command of the facade.
func (s *sender) handleTxnCommand(cmd txnCommand) {
	tm := s.txn
	switch {
	case cmd.kind == txnBegin:
		tm.state = txnInTransaction
	case cmd.kind == txnCommit && tm.state == txnAbortableError:
		cmd.result <- tm.commitError()
	case cmd.kind == txnCommit && tm.state == txnInTransaction:
		tm.state, tm.end = txnCommitting, &cmd
	case cmd.kind == txnAbort && tm.commitSent:
		// The coordinator may have committed: the commit goes on, and
		// only its answer can tell.
		cmd.result <- fmt.Errorf("%w: the commit was sent to the coordinator and not answered", ErrTransactionOutcomeUnknown)
	case cmd.kind == txnAbort && tm.state != txnReady:
		tm.reply(fmt.Errorf("%w: aborted while ending", ErrTransactionAborted))
		tm.state, tm.end = txnAborting, &cmd
		clear(tm.pending) // partitions without a sent batch need not be added
	default:
		cmd.result <- fmt.Errorf("%w: no transaction open", ErrTransactionState)
	}
}

// abortUndrainedBatches fails the batches not sent yet: the transaction
// will be aborted (Kafka's Sender.maybeAbortBatches).
func (s *sender) abortUndrainedBatches() {
	batches := s.acc.TakeUndrained()
	if len(batches) == 0 {
		return
	}
	cause := s.txn.lastErr
	if cause == nil {
		cause = errors.New("abort requested")
	}
	err := fmt.Errorf("%w before the record was sent: %w", ErrTransactionAborted, cause)
	for _, b := range batches {
		s.fail(b, err)
	}
}

// batchesSettled reports whether every batch has its outcome and no
// Produce request is in flight: the transaction can end.
func (s *sender) batchesSettled() bool {
	return s.inFlight.requests == 0 && !s.acc.HasIncomplete()
}

// nextTxnRequest is the transactional request to send next, or nil.
func (s *sender) nextTxnRequest() protocol.Request {
	tm := s.txn
	var req protocol.Request
	switch {
	case s.idem.needsProducerID():
		req = &protocol.InitProducerIdRequest{TransactionalID: &tm.transactionalID, TransactionTimeoutMs: tm.timeoutMs,
			ProducerID: tm.lastPID.id, ProducerEpoch: tm.lastPID.epoch}
	case len(tm.pending) > 0 && (tm.state == txnInTransaction || tm.state == txnCommitting):
		req = s.addPartitionsRequest()
	case tm.end != nil && tm.started() && s.batchesSettled():
		req = &protocol.EndTxnRequest{TransactionalID: tm.transactionalID, ProducerID: s.idem.pid.id,
			ProducerEpoch: s.idem.pid.epoch, Committed: tm.state == txnCommitting}
	default:
		return nil
	}
	if tm.coordinator < 0 {
		return protocol.NewFindCoordinatorRequest(protocol.CoordinatorKeyTypeTransaction, tm.transactionalID)
	}
	return req
}

// addPartitionsRequest adds every pending partition, grouped by topic.
func (s *sender) addPartitionsRequest() *protocol.AddPartitionsToTxnRequest {
	tm := s.txn
	req := &protocol.AddPartitionsToTxnRequest{TransactionalID: tm.transactionalID, ProducerID: s.idem.pid.id, ProducerEpoch: s.idem.pid.epoch}
	index := make(map[string]int)
	for tp := range tm.pending {
		i, ok := index[tp.Topic]
		if !ok {
			i = len(req.Topics)
			index[tp.Topic] = i
			req.Topics = append(req.Topics, protocol.AddPartitionsToTxnTopic{Name: tp.Topic})
		}
		req.Topics[i].Partitions = append(req.Topics[i].Partitions, tp.Partition)
	}
	return req
}

// txnDestination is the node a transactional request goes to: any broker
// for FindCoordinator, the coordinator for the rest. ok is false when it
// cannot be sent yet; wait is then how long the poll may wait.
func (s *sender) txnDestination(req protocol.Request, now time.Time) (node int32, wait time.Duration, ok bool) {
	if req.Key() == protocol.KeyFindCoordinator {
		n, found := s.client.LeastLoadedNode(now)
		if !found {
			return -1, maxPollTimeout, false
		}
		node = n
	} else {
		node = s.txn.coordinator
		if _, known := s.md.Fetch().Node(node); !known {
			// A coordinator missing from the metadata: look again.
			s.md.RequestUpdate()
			return -1, maxPollTimeout, false
		}
	}
	if !s.client.Ready(node, now) {
		return -1, max(min(s.client.ConnectionDelay(node, now), maxPollTimeout), 0), false
	}
	return node, 0, true
}

// handleTxnResponse handles the response of a transactional request.
func (s *sender) handleTxnResponse(resp *network.ClientResponse) {
	tm := s.txn
	tm.inFlight = false
	now := resp.ReceivedAt
	what := resp.Request.Body.Key().String()
	if resp.Body == nil {
		if errors.Is(resp.Err, network.ErrUnsupportedVersion) {
			s.setFatal(tm.fatalError(what, fmt.Errorf("the broker does not support transactions: %w", resp.Err)))
			return
		}
		// Lost connection or timeout: the coordinator may have moved.
		tm.coordinator = -1
		backoff := tm.retryLater(s.cfg, now, 0)
		s.log.Debug("transactional request failed; retrying", "request", what, "backoff", backoff, "err", resp.Err)
		return
	}
	var err error
	switch body := resp.Body.(type) {
	case *protocol.FindCoordinatorResponse:
		err = s.handleFindCoordinatorResponse(body)
	case *protocol.InitProducerIdResponse:
		err = protocol.ErrorForCode(body.ErrorCode)
		if err == nil {
			s.idem.setProducerID(producerIDAndEpoch{id: body.ProducerID, epoch: body.ProducerEpoch})
			s.log.Debug("transactional producer id", "producer_id", body.ProducerID, "epoch", body.ProducerEpoch)
			tm.markReady()
		}
	case *protocol.AddPartitionsToTxnResponse:
		err = s.handleAddPartitionsResponse(body)
	case *protocol.EndTxnResponse:
		err = protocol.ErrorForCode(body.ErrorCode)
		if err == nil {
			s.transactionEnded()
		}
	}
	s.txnRequestOutcome(what, err, now)
}

// txnRequestOutcome retries a transactional request after a retriable
// error (re-finding the coordinator when it moved) and stops the producer
// after any other.
func (s *sender) txnRequestOutcome(what string, err error, now time.Time) {
	tm := s.txn
	var kerr *protocol.Error
	switch {
	case err == nil:
		tm.failures = 0
	case errors.Is(err, protocol.ErrNotCoordinator), errors.Is(err, protocol.ErrCoordinatorNotAvailable):
		tm.coordinator = -1
		tm.retryLater(s.cfg, now, 0)
	case errors.Is(err, protocol.ErrConcurrentTransactions):
		tm.retryLater(s.cfg, now, min(concurrentTransactionsBackoff, s.cfg.Accumulator.RetryBackoff))
	case errors.Is(err, protocol.ErrOperationNotAttempted), errors.As(err, &kerr) && kerr.Retriable:
		tm.retryLater(s.cfg, now, 0)
	case errAbortable(err):
		s.txn.abortable(err)
	default:
		s.setFatal(tm.fatalError(what, err))
		return
	}
	if err != nil {
		s.log.Debug("transactional request refused", "request", what, "err", err)
	}
}

// abortableError wraps an error that fails the open transaction but not
// the producer.
type abortableError struct{ err error }

func (e *abortableError) Error() string { return e.err.Error() }
func (e *abortableError) Unwrap() error { return e.err }

func errAbortable(err error) bool {
	var a *abortableError
	return errors.As(err, &a)
}

// handleFindCoordinatorResponse installs the coordinator, or returns the
// error.
func (s *sender) handleFindCoordinatorResponse(body *protocol.FindCoordinatorResponse) error {
	c, ok := body.Coordinator(s.txn.transactionalID)
	if !ok {
		return fmt.Errorf("%w: the response names no coordinator for the transactional id", protocol.ErrCoordinatorNotAvailable)
	}
	if err := protocol.ErrorForCode(c.ErrorCode); err != nil {
		if c.ErrorMessage != nil && *c.ErrorMessage != "" {
			err = fmt.Errorf("%w (broker: %s)", err, *c.ErrorMessage)
		}
		return err
	}
	s.txn.coordinator = c.NodeID
	s.log.Debug("transaction coordinator", "coordinator", c.NodeID)
	return nil
}

// handleAddPartitionsResponse adds the partitions the coordinator accepted
// and returns the most serious error of the others: fatal, then
// abortable, then retriable (the refused partitions stay pending).
func (s *sender) handleAddPartitionsResponse(body *protocol.AddPartitionsToTxnResponse) error {
	tm := s.txn
	var fatal, abortable, retriable error
	for _, t := range body.Results {
		for _, p := range t.Results {
			tp := accumulator.TopicPartition{Topic: t.Name, Partition: p.PartitionIndex}
			err := protocol.ErrorForCode(p.PartitionErrorCode)
			if _, asked := tm.pending[tp]; !asked {
				continue
			}
			var kerr *protocol.Error
			switch {
			case err == nil:
				delete(tm.pending, tp)
				tm.partitions[tp] = struct{}{}
			case isFencingError(err), errors.Is(err, protocol.ErrInvalidTxnState), errors.Is(err, protocol.ErrInvalidProducerIdMapping):
				fatal = cmpOr(fatal, err)
			case errors.Is(err, protocol.ErrNotCoordinator), errors.Is(err, protocol.ErrCoordinatorNotAvailable),
				errors.Is(err, protocol.ErrConcurrentTransactions), errors.Is(err, protocol.ErrOperationNotAttempted),
				errors.As(err, &kerr) && kerr.Retriable:
				retriable = cmpOr(retriable, err)
			default:
				abortable = cmpOr(abortable, error(&abortableError{fmt.Errorf("add %s/%d to the transaction: %w", tp.Topic, tp.Partition, err)}))
			}
		}
	}
	if abortable != nil {
		clear(tm.pending) // their batches fail with the abort
	}
	return cmpOr(fatal, abortable, retriable)
}

// cmpOr returns the first non-nil error.
func cmpOr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// transactionEnded completes a commit or an abort the coordinator
// accepted. After an abort the producer id is fetched again (bumping the
// epoch, KIP-360): sequences of aborted batches must not carry over.
func (s *sender) transactionEnded() {
	tm := s.txn
	aborted := tm.state == txnAborting
	tm.complete()
	if aborted {
		tm.lastPID = s.idem.pid
		s.idem.pid = noProducerID
	}
}
