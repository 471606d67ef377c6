package sender

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kproduce/kproduce/pkg/accumulator"
	"github.com/kproduce/kproduce/pkg/network"
)

// ErrRecordTooLarge is wrapped when a record cannot fit in a request (or
// in the buffer memory).
var ErrRecordTooLarge = accumulator.ErrRecordTooLarge

// ErrUnknownPartition is wrapped when a record names a partition its
// topic does not have, or has none and no partitioner to choose one.
var ErrUnknownPartition = errors.New("unknown partition")

// ErrTopicMetadata is wrapped when a topic's partitions could not be
// learned in time, or the cluster says it has no such topic.
var ErrTopicMetadata = errors.New("topic not present in metadata")

// ErrNotSent is wrapped by the error of a record refused when it was
// handed over (an unknown topic or partition, a record too large, a
// producer closed or stopped, a context ended): it never left the
// producer, so producing it again cannot make a duplicate.
var ErrNotSent = errors.New("not sent")

// notSent wraps the error of a record refused at hand-over.
func notSent(err error) error {
	if errors.Is(err, ErrNotSent) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrNotSent, err)
}

// Producer produces records to a Kafka cluster: Produce and ProduceBatch
// hand records over, one goroutine of the producer batches them per
// partition and sends them to the partitions' leaders, and each record's
// promise tells what became of it. Its methods are safe for concurrent
// use.
type Producer struct {
	cfg    config
	acc    *accumulator.Accumulator
	client *network.Client
	md     *network.Metadata
	sender *sender
	clock  network.Clock
	dry    *dryRouter // set with DryRun

	scratch sync.Pool // *batchScratch for ProduceBatch
	calls   sync.Pool // *batchCall for ProduceBatchDone

	// manual is set when the partitioner is ManualPartitioner: a record's
	// own Partition places it.
	manual bool
	sticky bool // the partitioner is sticky for records without a key

	mu           sync.Mutex           // guards part and missingSince
	part         Partitioner          // not safe for concurrent use
	missingSince map[string]time.Time // topics whose metadata wait already timed out

	// promised is the Record handed to the promises of ProduceBatch, reused:
	// promises run one at a time on the Sender's goroutine. Its Opaque is
	// the last promised record's until the next.
	promised     Record
	promiseBytes bool // PromiseRecordBytes: promised gets each record's key, value and headers
	// waits counts the metadata waits that ended: a ProduceBatch call reads
	// the clock again after one, so that its records count their linger,
	// delivery timeout and timestamp from when they could go.
	waits atomic.Int64
}

// New starts a producer with opts; it connects when the first record
// needs the cluster. Options that do not go together are an error
// wrapping ErrConfig.
func New(opts ...Opt) (*Producer, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		o(&cfg)
	}
	var sel network.Selector
	if !(cfg.DryRun && cfg.DryRunPartitions > 0) {
		sel = network.NewSocketSelector(cfg.Socket)
	}
	p, err := newProducer(cfg, sel, network.SystemClock{})
	if err != nil {
		return nil, err
	}
	if p.sender != nil {
		go p.sender.run()
	}
	return p, nil
}

// newProducer builds a producer of cfg without starting its Sender
// goroutine, so tests can step the Sender with a mock selector and a
// manual clock. This is the one place where the lower layers'
// configurations are derived from the options.
func newProducer(cfg config, sel network.Selector, clock network.Clock) (*Producer, error) {
	cfg.derive()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if cfg.Rand == nil {
		cfg.Rand = rand.IntN
	}
	if cfg.Partitioner == nil {
		cfg.Partitioner = accumulator.NewMurmur2Partitioner(cfg.Rand)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	cfg.Network.RequestTimeout = cfg.RequestTimeout
	if cfg.Network.BootstrapTimeout <= 0 {
		cfg.Network.BootstrapTimeout = cfg.Accumulator.DeliveryTimeout
	}
	cfg.Network.Logger = cfg.Logger
	cfg.Accumulator.MaxRequestSize = cfg.MaxRequestSize
	cfg.Accumulator.Transactional = cfg.TransactionalID != ""
	if cfg.DryRun {
		cfg.Metadata.AllowAutoTopicCreation = false
	}
	p := &Producer{cfg: cfg, clock: clock, part: cfg.Partitioner, missingSince: make(map[string]time.Time),
		promiseBytes: cfg.Accumulator.ResultRecords}
	_, p.manual = cfg.Partitioner.(*manualPartitioner)
	p.sticky = isSticky(cfg.Partitioner)
	p.scratch.New = newBatchScratch
	p.calls.New = newBatchCall
	if cfg.DryRun {
		p.dry = newDryRouter(&p.cfg)
		if cfg.DryRunPartitions > 0 {
			return p, nil // no cluster: nothing runs
		}
	}
	bootstrap, err := network.BootstrapNodes(cfg.Bootstrap)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	p.md = network.NewMetadata(p.cfg.Metadata, bootstrap)
	p.client = network.NewClient(p.cfg.Network, p.md, sel, clock)
	// The accumulator wakes the Sender when a batch becomes sendable early
	// (full, or an appender waits for memory).
	p.cfg.Accumulator.Wakeup = p.client.Wakeup
	if cfg.SkipDeliveredPromises {
		// Delivered batches are counted (by the Sender), not reported.
		p.cfg.Accumulator.OnDelivered = func(accumulator.TopicPartition, int64, int) {}
	}
	// The records of a ProduceBatchDone call come off its count an owner
	// run at a time, delivered or not.
	p.cfg.Accumulator.OnOwnerRun = ownerRunDone
	p.acc = accumulator.New(p.cfg.Accumulator, p.completion())
	p.sender = newSender(&p.cfg, p.client, p.acc, clock)
	return p, nil
}

// Produce hands one record to the producer; promise (which may be nil)
// is called exactly once with r and its outcome: delivered (r.Offset set),
// or the error that failed it. r belongs to the producer until then: the
// producer sets its Partition, Offset and Timestamp, and reads its other
// fields until the promise runs.
//
// Produce blocks while the buffer memory is spent and while the topic's
// partitions are not known yet (up to MaxBlock). A record refused at once
// (too large, an unknown partition, ctx ended, the producer closed or
// stopped) has its promise called before Produce returns, with an error
// wrapping ErrNotSent; the others from the producer's goroutine, in order
// within a partition.
func (p *Producer) Produce(ctx context.Context, r *Record, promise func(*Record, error)) {
	if promise == nil {
		promise = func(*Record, error) {}
	}
	var err error
	if p.dry != nil {
		_, err = p.dry.produce(ctx, p, []*Record{r}, promise)
	} else {
		_, err = p.produce(ctx, nil, r, producePromise(promise), promise)
	}
	if err != nil {
		r.Offset = -1
		promise(r, notSent(err))
	}
}

// ProduceSync produces r and waits for its outcome, which it returns
// (nil: delivered, r.Offset set).
func (p *Producer) ProduceSync(ctx context.Context, r *Record) error {
	done := make(chan error, 1)
	p.Produce(ctx, r, func(_ *Record, err error) { done <- err })
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		// The promise still runs; the record is no longer waited for.
		return ctx.Err()
	}
}

// Flush sends everything handed over so far at once and waits until each
// of those records has an outcome (its promise ran), or ctx ends.
func (p *Producer) Flush(ctx context.Context) error {
	if p.acc == nil {
		return nil
	}
	p.acc.BeginFlush()
	p.client.Wakeup()
	return p.acc.AwaitFlushCompletion(ctx)
}

// Close stops taking records and waits until every record has an outcome,
// then closes the connections. When ctx ends first, records still pending
// fail with ErrClosed and Close returns ctx's error. Records handed over
// after Close fail with ErrClosed.
func (p *Producer) Close(ctx context.Context) error {
	if p.sender == nil {
		if p.dry != nil {
			p.dry.close()
		}
		return nil
	}
	if p.dry != nil {
		p.dry.close()
	}
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

// FatalError returns the error that stopped the producer for good (no
// seed broker answered, authentication or TLS failed, the peer is not
// Kafka, idempotence refused, another producer took over the transactional
// id), or nil. Every record pending then fails with it.
func (p *Producer) FatalError() error {
	if p.sender == nil {
		return nil
	}
	return p.sender.fatalError()
}

// Stopped returns a channel that is closed when a fatal error stops the
// producer (see FatalError).
func (p *Producer) Stopped() <-chan struct{} {
	if p.sender == nil {
		return nil
	}
	return p.sender.stopped
}
