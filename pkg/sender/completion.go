package sender

import (
	"errors"
	"fmt"
	"time"

	"github.com/kproduce/kproduce/pkg/accumulator"
	"github.com/kproduce/kproduce/pkg/network"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// ErrClosed is the outcome of records still pending when the producer was
// closed before they could be delivered.
var ErrClosed = errors.New("producer closed before the record was delivered")

// ErrDeliveryTimeout is wrapped by the outcome of records not delivered
// within the delivery timeout.
var ErrDeliveryTimeout = errors.New("delivery timeout expired")

// ErrLeaderUnreachable is wrapped by the outcome of records that expired
// because no connection to their partition's leader could be set up.
var ErrLeaderUnreachable = errors.New("could not be reached")

// completeBatch decides a sent batch's fate from its request's outcome:
// done, split, retried or failed (Kafka's Sender.completeBatch).
func (s *sender) completeBatch(b *accumulator.Batch, err error, baseOffset, logAppendTime int64, now time.Time) {
	s.inFlight.remove(b)
	s.unmute(b)
	if b.IsDone() {
		s.completeReported(b, err)
		return
	}
	if err != nil && outcomeUnknown(err) {
		s.maybeWritten[b] = struct{}{}
	}
	switch {
	case err == nil:
		s.idem.acked(b)
		s.finish(b, baseOffset, logAppendTime, nil)
	case errors.Is(err, protocol.ErrDuplicateSequenceNumber):
		// The broker holds the batch but no longer knows where: delivered,
		// at an unknown offset.
		s.idem.acked(b)
		s.finish(b, -1, -1, nil)
	case isTooLarge(err) && b.RecordCount() > 1:
		s.tooLarge(b, err, now)
	case s.canRetry(b, err, now):
		s.retry(b, err, now)
	case s.retriable(err):
		// Out of time: report the delivery timeout with this last error.
		s.lastErr[b] = err
		s.idem.abandoned(b, !s.mayBeWritten(b))
		s.finish(b, -1, -1, s.deliveryTimeoutError(b, b.Attempts()+1, false))
	default:
		s.failSent(b, err)
	}
}

// completeReported handles the end of the request of a batch whose outcome
// was already reported (delivery timeout while in flight, forced close):
// the broker's answer still tells the idempotence state whether its
// sequence was used, and its memory can now be released.
func (s *sender) completeReported(b *accumulator.Batch, err error) {
	if err == nil || errors.Is(err, protocol.ErrDuplicateSequenceNumber) {
		s.idem.acked(b)
	} else {
		s.idem.abandoned(b, false)
	}
	delete(s.lastErr, b)
	delete(s.maybeWritten, b)
	s.acc.Deallocate(b)
}

// failSent fails a sent batch for good with the broker's error, saying so
// when an attempt may have been written nonetheless.
func (s *sender) failSent(b *accumulator.Batch, err error) {
	s.idem.abandoned(b, !s.mayBeWritten(b))
	if s.mayBeWritten(b) {
		err = fmt.Errorf("%w; an attempt got no clear answer: %s", err, maybeWrittenNote)
	}
	if s.cfg.Idempotence && errors.Is(err, protocol.ErrClusterAuthorizationFailed) {
		// Brokers before Kafka 2.8 need IdempotentWrite on the cluster for
		// every idempotent Produce: nothing can succeed.
		s.finish(b, -1, -1, err)
		s.setFatal(fmt.Errorf("idempotent produce is not authorized (%w): grant the IdempotentWrite permission or run with --idempotence=false", err))
		return
	}
	s.finish(b, -1, -1, err)
}

// tooLarge splits a batch the broker refused as too large and puts its
// parts back for sending, at the front of the partition's queue. With
// idempotence the parts carry the batch's producer id and sequences (as
// Kafka's ProducerBatch.split), so later batches of the partition, even in
// flight, keep valid sequences: the broker refused the big batch, so it
// still expects its first sequence, which the first part carries.
func (s *sender) tooLarge(b *accumulator.Batch, err error, now time.Time) {
	tp := b.TopicPartition()
	delete(s.lastErr, b)
	delete(s.maybeWritten, b)
	parts := s.acc.Split(b, now)
	if len(parts) == 0 {
		s.idem.abandoned(b, true) // the same bytes are refused every time: never written
		s.finish(b, -1, -1, err)
		return
	}
	s.idem.split(b, parts)
	s.stats.splits.Add(1)
	s.log.Debug("batch too large; split", "topic", tp.Topic, "partition", tp.Partition,
		"records", b.RecordCount(), "batches", len(parts))
}

// finish completes a batch once and releases its memory.
func (s *sender) finish(b *accumulator.Batch, baseOffset, logAppendTime int64, err error) {
	delete(s.lastErr, b)
	delete(s.maybeWritten, b)
	s.report(b, baseOffset, logAppendTime, err)
	s.acc.Deallocate(b)
}

// report reports a batch's outcome (once) and notes that records completed
// in this turn.
func (s *sender) report(b *accumulator.Batch, baseOffset, logAppendTime int64, err error) {
	if b.Done(baseOffset, logAppendTime, err) {
		s.completed = true
		if err != nil && s.txn != nil {
			s.transactionalBatchFailed(err)
		}
	}
}

// transactionalBatchFailed makes the open transaction abortable, or stops
// the producer when another producer fenced it.
func (s *sender) transactionalBatchFailed(err error) {
	if isFencingError(err) {
		s.setFatal(s.txn.fatalError("produce", err))
		return
	}
	s.txn.abortable(err)
}

// fail completes a batch that is not in flight with err.
func (s *sender) fail(b *accumulator.Batch, err error) {
	s.idem.abandoned(b, !s.mayBeWritten(b))
	s.finish(b, -1, -1, err)
}

// unmute lets the partition of a completed batch send again when only one
// request per partition may be in flight.
func (s *sender) unmute(b *accumulator.Batch) {
	if s.guaranteeOrder() {
		s.acc.UnmutePartition(b.TopicPartition())
	}
}

// guaranteeOrder is Kafka's guaranteeMessageOrder: with one request in
// flight per connection, a partition with a batch in flight is muted, so
// that a leader change cannot put two of its batches in flight at once.
func (s *sender) guaranteeOrder() bool { return s.cfg.Network.MaxInFlightPerConnection == 1 }

// canRetry reports whether a failed attempt may be retried: the error is
// retriable and the delivery timeout has not passed.
func (s *sender) canRetry(b *accumulator.Batch, err error, now time.Time) bool {
	return s.canRetryAt(b, now) && s.retriable(err)
}

// canRetryAt reports whether a batch has attempts and time left.
func (s *sender) canRetryAt(b *accumulator.Batch, now time.Time) bool {
	return b.Attempts() < s.cfg.Retries && now.Before(b.CreatedAt().Add(s.cfg.Accumulator.DeliveryTimeout))
}

// retriable classifies an attempt's error. Kafka marks CORRUPT_MESSAGE
// retriable because the network may have corrupted the bytes, but a batch
// is resent byte for byte, so it is not retried here.
func (s *sender) retriable(err error) bool {
	switch {
	case errors.Is(err, network.ErrDisconnected), errors.Is(err, network.ErrRequestTimedOut):
		return true
	case errors.Is(err, protocol.ErrCorruptMessage):
		return false
	case s.txn != nil && (errors.Is(err, protocol.ErrOutOfOrderSequenceNumber) ||
		errors.Is(err, protocol.ErrUnknownProducerId) || errors.Is(err, protocol.ErrInvalidProducerEpoch)):
		// No epoch bump inside a transaction: the transaction aborts.
		return false
	case s.cfg.Idempotence && (errors.Is(err, protocol.ErrOutOfOrderSequenceNumber) ||
		errors.Is(err, protocol.ErrUnknownProducerId) || errors.Is(err, protocol.ErrInvalidProducerEpoch)):
		return true
	}
	var kerr *protocol.Error
	return errors.As(err, &kerr) && kerr.Retriable
}

// retry puts a batch back for another attempt after its backoff, refreshing
// metadata when the error says it is stale, and handling the sequence
// errors as Kafka's TransactionManager does.
func (s *sender) retry(b *accumulator.Batch, err error, now time.Time) {
	tp := b.TopicPartition()
	if b.HasSequence() {
		switch {
		case errors.Is(err, protocol.ErrOutOfOrderSequenceNumber) && s.idem.resolving(b):
			// Sent to settle a broken sequence, and the broker still waits
			// for an earlier batch that will never come: b was not stored.
			s.idem.notStored(b)
			delete(s.maybeWritten, b)
		case errors.Is(err, protocol.ErrOutOfOrderSequenceNumber) && s.idem.isNextSequence(b):
			// The broker expected exactly this batch and still refused it:
			// it lost this producer's state.
			s.idem.breakSequence(tp, nil)
		case errors.Is(err, protocol.ErrUnknownProducerId), errors.Is(err, protocol.ErrInvalidProducerEpoch):
			s.idem.breakSequence(tp, nil)
		}
	}
	var kerr *protocol.Error
	if errors.Is(err, network.ErrDisconnected) || (errors.As(err, &kerr) && kerr.InvalidMetadata) {
		s.md.RequestUpdate()
	}
	s.lastErr[b] = err
	s.log.Debug("retrying batch", "topic", tp.Topic, "partition", tp.Partition, "attempt", b.Attempts()+1, "err", err)
	s.stats.retries.Add(1)
	s.acc.Reenqueue(b, now)
}

// deliveryTimeoutError explains why a batch expired, with its last error
// or, for a batch never sent, why it could not be sent.
// attempts counts the attempts made; inFlight says the last one is still
// awaiting its answer.
func (s *sender) deliveryTimeoutError(b *accumulator.Batch, attempts int, inFlight bool) error {
	err := fmt.Errorf("%w: not delivered within %s (%d attempts)", ErrDeliveryTimeout, s.cfg.Accumulator.DeliveryTimeout, attempts)
	switch {
	case inFlight:
		err = fmt.Errorf("%w; the last produce request got no answer in time: %s", err, maybeWrittenNote)
	case s.mayBeWritten(b):
		err = fmt.Errorf("%w; an attempt got no clear answer: %s", err, maybeWrittenNote)
	}
	if last := s.lastErr[b]; last != nil {
		return fmt.Errorf("%w; last error: %w", err, last)
	}
	if reason := s.leaderReason(b.TopicPartition()); reason != nil {
		return fmt.Errorf("%w; %w", err, reason)
	}
	return err
}

// leaderReason says why a partition's batches cannot be sent to its
// leader, or nil when its leader is known and connected.
func (s *sender) leaderReason(tp accumulator.TopicPartition) error {
	cluster := s.md.Fetch()
	leader, ok := cluster.LeaderFor(tp.Topic, tp.Partition)
	if !ok {
		if t, ok := cluster.Topic(tp.Topic); ok && t.Err != nil {
			return fmt.Errorf("topic %s: %w", tp.Topic, t.Err)
		}
		if p, ok := cluster.Partition(tp.Topic, tp.Partition); ok && p.Err != nil {
			return fmt.Errorf("no leader for %s/%d: %w", tp.Topic, tp.Partition, p.Err)
		} else if ok && p.Leader >= 0 {
			return fmt.Errorf("the leader of %s/%d, broker %d, is not in the metadata's broker list", tp.Topic, tp.Partition, p.Leader)
		}
		if err := s.md.LastError(); err != nil {
			return fmt.Errorf("no leader known for %s/%d; last metadata error: %w", tp.Topic, tp.Partition, err)
		}
		return fmt.Errorf("no leader known for %s/%d", tp.Topic, tp.Partition)
	}
	n, _ := cluster.Node(leader) // LeaderFor names only listed brokers
	name := n.String()
	if err := s.client.AuthenticationError(leader); err != nil {
		return fmt.Errorf("leader of %s/%d, %s: %w", tp.Topic, tp.Partition, name, err)
	}
	if st := s.client.ConnectionState(leader); st != network.Ready {
		err := fmt.Errorf("the leader of %s/%d, %s, %w (connection %s)", tp.Topic, tp.Partition, name, ErrLeaderUnreachable, st)
		if cause := s.client.LastConnectionError(leader); cause != nil {
			// The cause names the broker and says why it was lost.
			err = fmt.Errorf("the leader of %s/%d %w: %w", tp.Topic, tp.Partition, ErrLeaderUnreachable, cause)
		}
		if last := s.md.LastError(); last != nil {
			err = fmt.Errorf("%w; last metadata error: %w", err, last)
		}
		return err
	}
	return nil
}

func isTooLarge(err error) bool {
	return errors.Is(err, protocol.ErrMessageTooLarge) || errors.Is(err, protocol.ErrRecordListTooLarge)
}
