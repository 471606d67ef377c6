package sender

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/kproduce/kproduce/pkg/network"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// producerIDInit is the state of fetching a producer id. Owned by the
// Sender goroutine.
type producerIDInit struct {
	inFlight     bool
	backoffUntil time.Time
	failures     int
}

// initProducerIDAttachment marks an InitProducerId request's response.
type initProducerIDAttachment struct{}

// maybeInitProducerID starts fetching a producer id when one is needed (at
// start, or once a sequence reset can happen) and returns how long the
// next poll may wait.
func (s *sender) maybeInitProducerID(now time.Time) time.Duration {
	if s.idem.readyToReset(s.inFlight.requests) && s.idem.pid.valid() {
		s.log.Info("resetting idempotent sequences with a new producer id", "producer_id", s.idem.pid.id)
		s.idem.pid = noProducerID
	}
	if !s.idem.needsProducerID() || s.init.inFlight {
		return maxPollTimeout
	}
	if now.Before(s.init.backoffUntil) {
		return s.init.backoffUntil.Sub(now)
	}
	node, ok := s.client.LeastLoadedNode(now)
	if !ok {
		return maxPollTimeout
	}
	if !s.client.Ready(node, now) {
		return max(s.client.ConnectionDelay(node, now), 0)
	}
	req := &protocol.InitProducerIdRequest{
		TransactionTimeoutMs: math.MaxInt32,
		ProducerID:           -1,
		ProducerEpoch:        -1,
	}
	cr := s.client.NewClientRequest(node, req, now, true, s.cfg.RequestTimeout, initProducerIDAttachment{})
	if err := s.client.Send(cr, now); err != nil {
		s.initFailed(err, now)
		return maxPollTimeout
	}
	s.init.inFlight = true
	return maxPollTimeout
}

// handleInitProducerIDResponse installs the new producer id, or backs off
// and retries, or stops the producer when the broker refuses idempotence.
func (s *sender) handleInitProducerIDResponse(resp *network.ClientResponse) {
	s.init.inFlight = false
	now := resp.ReceivedAt
	if resp.Body == nil {
		if errors.Is(resp.Err, network.ErrUnsupportedVersion) {
			s.setFatal(fmt.Errorf("idempotent produce needs InitProducerId (%w): run with --idempotence=false", resp.Err))
			return
		}
		s.initFailed(resp.Err, now)
		return
	}
	body := resp.Body.(*protocol.InitProducerIdResponse)
	err := protocol.ErrorForCode(body.ErrorCode)
	var kerr *protocol.Error
	switch {
	case err == nil:
		s.init.failures = 0
		s.idem.setProducerID(producerIDAndEpoch{id: body.ProducerID, epoch: body.ProducerEpoch})
		s.log.Debug("producer id", "producer_id", body.ProducerID, "epoch", body.ProducerEpoch)
	case errors.As(err, &kerr) && kerr.Retriable:
		s.initFailed(err, now)
	case errors.Is(err, protocol.ErrClusterAuthorizationFailed):
		s.setFatal(fmt.Errorf("idempotent produce is not authorized (%w): grant the IdempotentWrite permission or run with --idempotence=false", err))
	default:
		s.setFatal(fmt.Errorf("init producer id: %w", err))
	}
}

// initFailed schedules another InitProducerId attempt with backoff.
func (s *sender) initFailed(err error, now time.Time) {
	s.init.failures++
	backoff := s.cfg.Accumulator.RetryBackoff << min(s.init.failures-1, 10)
	backoff = min(backoff, s.cfg.Accumulator.RetryBackoffMax)
	s.init.backoffUntil = now.Add(backoff)
	s.log.Debug("init producer id failed; retrying", "backoff", backoff, "err", err)
}
