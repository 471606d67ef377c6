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

// completeBatch decides a sent batch's fate from its request's outcome:
// done, split, retried or failed (Kafka's Sender.completeBatch).
func (s *Sender) completeBatch(b *accumulator.Batch, err error, baseOffset, logAppendTime int64, now time.Time) {
	s.inFlight.remove(b)
	if b.IsDone() {
		// Its outcome was reported while in flight (delivery timeout or a
		// forced close); only the memory is left to release.
		s.acc.Deallocate(b)
		return
	}
	switch {
	case err == nil || errors.Is(err, protocol.ErrDuplicateSequenceNumber):
		s.idem.acked(b)
		s.finish(b, baseOffset, logAppendTime, nil)
	case isTooLarge(err) && b.RecordCount() > 1:
		s.idem.abandoned(b)
		n := s.acc.SplitAndReenqueue(b, now)
		delete(s.lastErr, b)
		s.log.Debug().Str("topic", b.TopicPartition().Topic).Int32("partition", b.TopicPartition().Partition).
			Int("records", b.RecordCount()).Int("batches", n).Msg("batch too large; split")
	case s.canRetry(b, err, now):
		s.retry(b, err, now)
	default:
		s.idem.abandoned(b)
		s.finish(b, -1, -1, err)
	}
}

// finish completes a batch once and releases its memory.
func (s *Sender) finish(b *accumulator.Batch, baseOffset, logAppendTime int64, err error) {
	delete(s.lastErr, b)
	b.Done(baseOffset, logAppendTime, err)
	s.acc.Deallocate(b)
}

// fail completes a batch that is not in flight with err.
func (s *Sender) fail(b *accumulator.Batch, err error) {
	s.idem.abandoned(b)
	s.finish(b, -1, -1, err)
}

// canRetry reports whether a failed attempt may be retried: the error is
// retriable and the delivery timeout has not passed.
func (s *Sender) canRetry(b *accumulator.Batch, err error, now time.Time) bool {
	if b.Attempts() >= retries || !now.Before(b.CreatedAt().Add(s.cfg.Accumulator.DeliveryTimeout)) {
		return false
	}
	return s.retriable(err)
}

// retriable classifies an attempt's error. Kafka marks CORRUPT_MESSAGE
// retriable because the network may have corrupted the bytes, but a batch
// is resent byte for byte, so it is not retried here.
func (s *Sender) retriable(err error) bool {
	switch {
	case errors.Is(err, network.ErrDisconnected), errors.Is(err, network.ErrRequestTimedOut):
		return true
	case errors.Is(err, protocol.ErrCorruptMessage):
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
func (s *Sender) retry(b *accumulator.Batch, err error, now time.Time) {
	tp := b.TopicPartition()
	if b.HasSequence() {
		switch {
		case errors.Is(err, protocol.ErrOutOfOrderSequenceNumber) && s.idem.isNextSequence(b):
			// The broker expected exactly this batch and still refused it:
			// it lost this producer's state.
			s.idem.breakSequence(tp)
		case errors.Is(err, protocol.ErrUnknownProducerId), errors.Is(err, protocol.ErrInvalidProducerEpoch):
			s.idem.breakSequence(tp)
		}
	}
	var kerr *protocol.Error
	if errors.Is(err, network.ErrDisconnected) || (errors.As(err, &kerr) && kerr.InvalidMetadata) {
		s.md.RequestUpdate()
	}
	s.lastErr[b] = err
	s.log.Debug().Err(err).Str("topic", tp.Topic).Int32("partition", tp.Partition).Int("attempt", b.Attempts()+1).Msg("retrying batch")
	s.acc.Reenqueue(b, now)
}

// deliveryTimeoutError explains why a batch expired, with its last error.
func (s *Sender) deliveryTimeoutError(b *accumulator.Batch, inFlight bool) error {
	err := fmt.Errorf("%w (%s) after %d attempts", ErrDeliveryTimeout, s.cfg.Accumulator.DeliveryTimeout, b.Attempts())
	if inFlight {
		err = fmt.Errorf("%w while a produce request was in flight: the record may or may not have been written", err)
	}
	if last := s.lastErr[b]; last != nil {
		return fmt.Errorf("%w; last error: %w", err, last)
	}
	if reason := s.noLeaderReason(b.TopicPartition()); reason != nil {
		return fmt.Errorf("%w; %w", err, reason)
	}
	return err
}

// noLeaderReason says why a partition has no usable leader, or nil.
func (s *Sender) noLeaderReason(tp accumulator.TopicPartition) error {
	cluster := s.md.Fetch()
	if _, ok := cluster.LeaderFor(tp.Topic, tp.Partition); ok {
		return nil
	}
	if t, ok := cluster.Topic(tp.Topic); ok && t.Err != nil {
		return fmt.Errorf("topic %s: %w", tp.Topic, t.Err)
	}
	if err := s.md.LastError(); err != nil {
		return fmt.Errorf("no leader known for %s/%d; last metadata error: %w", tp.Topic, tp.Partition, err)
	}
	return fmt.Errorf("no leader known for %s/%d", tp.Topic, tp.Partition)
}

func isTooLarge(err error) bool {
	return errors.Is(err, protocol.ErrMessageTooLarge) || errors.Is(err, protocol.ErrRecordListTooLarge)
}
