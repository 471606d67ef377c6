package sender

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kproduce/kproduce/pkg/accumulator"
	"github.com/kproduce/kproduce/pkg/network"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// Record is a record to produce. A nil Key or Value is null.
type Record struct {
	Topic     string
	Partition int32 // -1: let the partitioner choose
	Key       []byte
	Value     []byte
	Headers   []protocol.Header
	Timestamp int64 // ms since the epoch; 0: ReadAt
	// ReadAt is when the record was read from its source; the zero time
	// means now. It is the record's timestamp unless Timestamp is set, and
	// its batch's creation time for linger and the delivery timeout, so a
	// caller that reads many records at once reads the clock once.
	ReadAt time.Time
	// Position identifies the record in the caller's input, for its
	// Result; SendBatch reads it (Send takes it as an argument).
	Position accumulator.Position
}

// ErrRecordTooLarge is wrapped when a record cannot fit in a request (or
// in the buffer memory).
var ErrRecordTooLarge = accumulator.ErrRecordTooLarge

// ErrUnknownPartition is wrapped when an explicit partition does not exist.
var ErrUnknownPartition = errors.New("unknown partition")

// ErrTopicMetadata is wrapped when a topic's partitions could not be
// learned in time.
var ErrTopicMetadata = errors.New("topic not present in metadata")

// Producer is the facade the command line uses: Send appends records, the
// Sender goroutine delivers them, and the callback reports each outcome.
// Send, Flush and Close are safe for concurrent use.
type Producer struct {
	cfg    Config
	acc    *accumulator.Accumulator
	client *network.Client
	md     *network.Metadata
	sender *Sender
	clock  network.Clock

	scratch sync.Pool // *batchScratch for SendBatch

	mu           sync.Mutex              // guards part and missingSince
	part         accumulator.Partitioner // not safe for concurrent use
	missingSince map[string]time.Time    // topics whose metadata wait already timed out

	// waitEnd is when the latest wait for a topic's metadata ended: a
	// record read before it (ReadAt) but sent after it counts its linger,
	// delivery timeout and timestamp from then, as if read then.
	waitEnd atomic.Pointer[time.Time]
}

// New starts a producer that connects with real sockets.
func New(cfg Config, cb accumulator.Callback) (*Producer, error) {
	p, err := newProducer(cfg, network.NewSocketSelector(cfg.Socket), network.SystemClock{}, cb)
	if err != nil {
		return nil, err
	}
	go p.sender.run()
	return p, nil
}

// newProducer builds a producer without starting its Sender goroutine, so
// tests can step the Sender with a mock selector and a manual clock.
func newProducer(cfg Config, sel network.Selector, clock network.Clock, cb accumulator.Callback) (*Producer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	bootstrap, err := network.BootstrapNodes(cfg.Bootstrap)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if cfg.Rand == nil {
		cfg.Rand = rand.IntN
	}
	if cfg.Partitioner == nil {
		cfg.Partitioner = accumulator.NewMurmur2Partitioner(cfg.Rand)
	}
	cfg.Network.RequestTimeout = cfg.RequestTimeout
	if cfg.Network.BootstrapTimeout <= 0 {
		cfg.Network.BootstrapTimeout = cfg.Accumulator.DeliveryTimeout
	}
	cfg.Accumulator.MaxRequestSize = cfg.MaxRequestSize
	cfg.Network.Logger = cfg.Logger
	cfg.Accumulator.Transactional = cfg.TransactionalID != ""
	md := network.NewMetadata(cfg.Metadata, bootstrap)
	client := network.NewClient(cfg.Network, md, sel, clock)
	// The accumulator wakes the Sender when a batch becomes sendable early
	// (full, or an appender waits for memory).
	cfg.Accumulator.Wakeup = client.Wakeup
	acc := accumulator.New(cfg.Accumulator, cb)
	p := &Producer{cfg: cfg, acc: acc, client: client, md: md, clock: clock,
		part: cfg.Partitioner, missingSince: make(map[string]time.Time)}
	p.scratch.New = newBatchScratch
	p.sender = newSender(&p.cfg, client, acc, clock)
	return p, nil
}

// Send appends a record for delivery; its outcome reaches the callback
// with pos. It blocks while buffer memory is exhausted and while the
// topic's partitions are unknown (at most MaxBlock). An error means the
// record was not accepted and the callback will not see it: ErrClosed
// after Close, the client-fatal error once the producer has stopped.
func (p *Producer) Send(ctx context.Context, rec *Record, pos accumulator.Position) error {
	if err := p.sender.fatalError(); err != nil {
		return err
	}
	if p.sender.closing.Load() {
		return ErrClosed
	}
	if tm := p.sender.txn; tm != nil && !tm.open.Load() {
		return fmt.Errorf("%w: a transactional producer sends records only inside a transaction", ErrTransactionState)
	}
	n, err := p.partitionCount(ctx, rec.Topic)
	if err != nil {
		return err
	}
	if rec.Partition >= int32(n) {
		return fmt.Errorf("%w: partition %d of topic %s, which has %d partitions", ErrUnknownPartition, rec.Partition, rec.Topic, n)
	}
	now := rec.ReadAt
	if now.IsZero() {
		now = p.clock.Now()
	}
	if end := p.waitEnd.Load(); end != nil && now.Before(*end) {
		now = *end
	}
	ts := rec.Timestamp
	if ts == 0 {
		ts = now.UnixMilli()
	}
	_, err = p.append(ctx, rec, n, ts, pos, now)
	if errors.Is(err, accumulator.ErrClosed) {
		// Closed by Close, or by a client-fatal error.
		if ferr := p.sender.fatalError(); ferr != nil {
			return ferr
		}
		return fmt.Errorf("%w: %w", ErrClosed, err)
	}
	return err
}

// append chooses the partition and appends, redoing the choice when the
// sticky partitioner would otherwise start a new batch (Kafka's
// abortOnNewBatch).
func (p *Producer) append(ctx context.Context, rec *Record, n int, ts int64, pos accumulator.Position, now time.Time) (accumulator.AppendResult, error) {
	tp := accumulator.TopicPartition{Topic: rec.Topic, Partition: rec.Partition}
	sticky := rec.Partition < 0 && rec.Key == nil
	if rec.Partition < 0 {
		tp.Partition = p.partition(rec.Topic, rec.Key, n)
	}
	res, err := p.acc.Append(ctx, tp, ts, rec.Key, rec.Value, rec.Headers, pos, sticky, now)
	if err != nil || !res.AbortForNewBatch {
		return res, err
	}
	p.mu.Lock()
	p.part.OnNewBatch(rec.Topic, n, tp.Partition)
	tp.Partition = p.part.Partition(rec.Topic, rec.Key, n)
	p.mu.Unlock()
	return p.acc.Append(ctx, tp, ts, rec.Key, rec.Value, rec.Headers, pos, false, now)
}

func (p *Producer) partition(topic string, key []byte, n int) int32 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.part.Partition(topic, key, n)
}

// Flush sends everything appended so far at once and waits until each of
// those records has an outcome.
func (p *Producer) Flush(ctx context.Context) error {
	p.acc.BeginFlush()
	p.client.Wakeup()
	return p.acc.AwaitFlushCompletion(ctx)
}

// Close stops accepting records and waits until every record has an
// outcome. When ctx ends first, records still pending fail with ErrClosed
// and Close returns ctx's error.
func (p *Producer) Close(ctx context.Context) error {
	p.sender.closing.Store(true)
	p.acc.Close()
	p.client.Wakeup()
	select {
	case <-p.sender.done:
		return nil
	case <-ctx.Done():
		p.sender.forceClosed.Store(true)
		p.client.Wakeup()
		<-p.sender.done
		return ctx.Err()
	}
}

// FatalError returns the error that stopped the producer (authentication,
// a peer that is not Kafka, idempotence refused), or nil.
func (p *Producer) FatalError() error { return p.sender.fatalError() }

// Stopped returns a channel that is closed when a client-fatal error stops
// the producer (see FatalError).
func (p *Producer) Stopped() <-chan struct{} { return p.sender.stopped }

// Metadata returns the producer's metadata cache.
func (p *Producer) Metadata() *network.Metadata { return p.md }
