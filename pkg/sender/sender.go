package sender

import (
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/kproduce/kproduce/pkg/accumulator"
	"github.com/kproduce/kproduce/pkg/network"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// maxPollTimeout bounds one Poll so that delivery timeouts of batches that
// cannot be sent (no leader, broker unreachable) are noticed promptly.
const maxPollTimeout = 100 * time.Millisecond

// sender drains the accumulator into Produce requests (Kafka's Sender). Its
// run loop is the only goroutine that touches the network client, the
// in-flight batches and the idempotence state.
type sender struct {
	cfg    *config
	client *network.Client
	md     *network.Metadata
	acc    *accumulator.Accumulator
	clock  network.Clock
	comp   *protocol.Compressor
	log    *slog.Logger

	// Owned by the run goroutine.
	idem     *idempotence
	txn      *transactionManager // nil unless transactional
	inFlight inFlightBatches
	init     producerIDInit
	lastErr  map[*accumulator.Batch]error // last retriable error of a batch, for the final report
	// maybeWritten holds the batches with an attempt the broker may have
	// stored (see outcomeUnknown), until they are done.
	maybeWritten map[*accumulator.Batch]struct{}
	// freeProduce are Produce requests to reuse (see newProduceAttachment).
	freeProduce []*produceAttachment
	// completed is set when a record's outcome was reported in this turn.
	completed bool
	// metadataAsked is the metadata update version at which the Sender last
	// asked for an update for partitions without a usable leader.
	metadataAsked int

	closing     atomic.Bool           // set by Close: finish what is queued, then stop
	forceClosed atomic.Bool           // set by a Close whose deadline passed: stop now
	fatal       atomic.Pointer[error] // a client-fatal error; set once
	stats       senderStats           // added to by the run goroutine only
	stopped     chan struct{}         // closed when fatal is set
	done        chan struct{}         // closed when run returns
}

func newSender(cfg *config, client *network.Client, acc *accumulator.Accumulator, clock network.Clock) *sender {
	return &sender{
		cfg:          cfg,
		client:       client,
		md:           client.Metadata(),
		acc:          acc,
		clock:        clock,
		comp:         protocol.NewCompressor(protocol.WithLevel(cfg.Accumulator.Codec, cfg.Accumulator.CompressionLevel)),
		log:          cfg.Logger,
		idem:         newIdempotence(cfg.Idempotence),
		txn:          newTransactionManager(cfg),
		lastErr:      make(map[*accumulator.Batch]error),
		stopped:      make(chan struct{}),
		maybeWritten: make(map[*accumulator.Batch]struct{}),
		done:         make(chan struct{}),
		// No update asked for yet.
		metadataAsked: -1,
	}
}

// run loops until closed: after Close it keeps going until every batch is
// done; after a forced close it fails what is left and stops.
func (s *sender) run() {
	defer close(s.done)
	for !s.forceClosed.Load() {
		if s.closing.Load() && !s.acc.HasIncomplete() && s.inFlight.requests == 0 {
			break
		}
		s.runOnce()
	}
	if s.forceClosed.Load() {
		s.failEverything(ErrClosed)
		s.afterTurn()
	}
	s.client.Close()
}

// runOnce is one turn of the loop: producer id, drain and send, poll,
// handle the responses. Once the producer has failed it only fails what
// is left and lets the requests in flight finish.
func (s *sender) runOnce() {
	// Nothing refers to the batches deallocated in the last turn any more
	// (see accumulator.RecycleBatches): new batches may reuse them.
	s.acc.RecycleBatches()
	now := s.clock.Now()
	if err := s.fatalError(); err != nil {
		s.failEverything(err)
		s.poll(maxPollTimeout)
		s.afterTurn()
		return
	}
	timeout := maxPollTimeout
	switch {
	case s.txn != nil:
		timeout = min(timeout, s.maybeSendTransactionalRequest(now))
	case s.cfg.Idempotence:
		timeout = min(timeout, s.maybeInitProducerID(now))
	}
	timeout = min(timeout, s.sendProducerData(now))
	if s.txn != nil && s.txn.takeNewPending() {
		timeout = 0 // a partition to add to the transaction: next turn at once
	}
	s.poll(timeout)
	s.checkFatal()
	s.afterTurn()
}

// poll waits for network events and handles the completed requests.
func (s *sender) poll(timeout time.Duration) {
	for _, resp := range s.client.Poll(timeout, s.clock.Now()) {
		s.handleResponse(resp)
	}
}

// afterTurn runs the AfterPromises hook when records completed.
func (s *sender) afterTurn() {
	if s.completed && s.cfg.AfterPromises != nil {
		s.cfg.AfterPromises()
	}
	s.completed = false
}

// sendProducerData drains ready batches and sends one Produce request per
// node. It returns how long the next poll may wait.
func (s *sender) sendProducerData(now time.Time) time.Duration {
	cluster := s.md.Fetch()
	result := s.acc.Ready(cluster, now)
	if len(result.UnknownLeaderTopics) > 0 {
		s.requestMetadataUpdate(result.UnknownLeaderTopics)
	}
	notReadyTimeout := time.Duration(1<<63 - 1)
	for node := range result.ReadyNodes {
		if !s.client.Ready(node, now) {
			delete(result.ReadyNodes, node)
			notReadyTimeout = min(notReadyTimeout, s.client.ConnectionDelay(node, now))
		}
	}
	batches := s.acc.Drain(cluster, result.ReadyNodes, s.cfg.MaxRequestSize, now, s.canDrain)
	if s.guaranteeOrder() {
		for _, bs := range batches {
			for _, b := range bs {
				s.acc.MutePartition(b.TopicPartition())
			}
		}
	}
	s.expireBatches(now)
	for node, bs := range batches {
		s.sendProduceRequest(node, bs, now)
	}
	if len(batches) > 0 {
		// More may be sendable at once (Kafka's Sender does the same).
		return 0
	}
	// Nothing was drained: ready nodes, if any, hold only batches the
	// idempotence rules hold back until a response or a producer id
	// arrives, which wakes the poll. Waiting for the next linger, backoff or
	// expiry avoids spinning meanwhile.
	timeout := min(result.NextReadyCheckDelay, notReadyTimeout)
	if d, ok := s.acc.NextBatchExpiry(); ok {
		timeout = min(timeout, d.Sub(now))
	}
	if d, ok := s.inFlight.nextExpiry(s.cfg.Accumulator.DeliveryTimeout); ok {
		timeout = min(timeout, d.Sub(now))
	}
	return max(timeout, 0)
}

// canDrain is the drain veto: the transaction's (a partition must be in
// the open transaction), then idempotence's (sequences).
func (s *sender) canDrain(b *accumulator.Batch) bool {
	if s.txn != nil && !s.txn.canSend(b.TopicPartition()) {
		return false
	}
	return s.idem.canDrain(b)
}

// requestMetadataUpdate asks for metadata about topics with partitions
// without a usable leader. The request wakes the Client's Poll, which this
// goroutine runs: asking every turn would make the wait for a leader a
// busy loop, so the Sender asks once per metadata update (a failed fetch
// leaves the request standing).
func (s *sender) requestMetadataUpdate(topics map[string]struct{}) {
	for topic := range topics {
		s.md.AddTopic(topic)
	}
	if v := s.md.UpdateVersion(); v != s.metadataAsked {
		s.metadataAsked = v
		s.md.RequestUpdate()
	}
}

// expireBatches fails the batches whose delivery timeout has passed, both
// those waiting in the accumulator and those in flight.
func (s *sender) expireBatches(now time.Time) {
	for _, b := range s.acc.ExpiredBatches(now) {
		s.fail(b, s.deliveryTimeoutError(b, b.Attempts(), false))
	}
	for _, b := range s.inFlight.expired(now, s.cfg.Accumulator.DeliveryTimeout) {
		// Its request is still being written or awaited: report now, but
		// keep its sequence and memory until the request completes, since
		// the broker may still write it (completeReported).
		s.report(b, -1, -1, s.deliveryTimeoutError(b, b.Attempts()+1, true))
		delete(s.lastErr, b)
		delete(s.maybeWritten, b)
	}
}

// failEverything fails every queued and in-flight batch with err.
func (s *sender) failEverything(err error) {
	if s.acc.HasIncomplete() {
		s.completed = true
	}
	s.acc.AbortIncompleteBatches(err)
	for _, b := range s.inFlight.all() {
		s.report(b, -1, -1, err)
		delete(s.lastErr, b)
		delete(s.maybeWritten, b)
	}
}

// fatalError returns the client-fatal error, if any.
func (s *sender) fatalError() error {
	if p := s.fatal.Load(); p != nil {
		return *p
	}
	return nil
}

// setFatal records the first client-fatal error and fails everything.
func (s *sender) setFatal(err error) {
	if s.fatal.CompareAndSwap(nil, &err) {
		close(s.stopped)
		s.log.Info("producer cannot continue", "err", err)
		s.failEverything(err)
	}
}

// checkFatal stops the producer when the bootstrap failed (every address
// failed for good, or none answered within the bootstrap timeout), or,
// once the cluster was reached, when a broker refused to authenticate it
// (SASL or TLS): retrying cannot help, so records fail at once instead of
// at the delivery timeout. While bootstrapping, one address failing for
// good is not fatal (another may lead to the cluster), except by an
// authentication failure, which ends the bootstrap (BootstrapError).
func (s *sender) checkFatal() {
	if s.fatal.Load() != nil {
		return
	}
	if err := s.client.BootstrapError(); err != nil {
		s.setFatal(err)
		return
	}
	if !s.client.Reached() {
		return
	}
	for _, n := range s.md.Fetch().Nodes() {
		if err := s.client.AuthenticationError(n.ID); err != nil {
			s.setFatal(err)
			return
		}
	}
}
