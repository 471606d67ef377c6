package sender

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/kproduce/kproduce/pkg/accumulator"
)

// dryRouter places the records of a DryRun producer as the producer would,
// without sending them: the same partitioner, called in the same order (a
// sticky partition is chosen again when the record would open a new
// batch), against a BatchFill standing in for the accumulator, so that a
// sticky partition moves on where a producer whose batches are sent only
// when full would move it.
type dryRouter struct {
	partitions int // every topic's partition count; 0: the cluster's
	closed     atomic.Bool

	mu   sync.Mutex // guards fill; taken before Producer.mu
	fill *accumulator.BatchFill
}

// newDryRouter returns the router of a producer of cfg.
func newDryRouter(cfg *config) *dryRouter {
	acc := cfg.Accumulator
	acc.MaxRequestSize = cfg.MaxRequestSize // as the producer sets it
	return &dryRouter{partitions: cfg.DryRunPartitions, fill: accumulator.NewBatchFill(acc)}
}

// close makes later records fail with ErrClosed.
func (d *dryRouter) close() { d.closed.Store(true) }

// produce places recs in order, calling promise for each with its
// partition (and offset -1) or the error that would fail it. Its result
// is ProduceBatch's.
func (d *dryRouter) produce(ctx context.Context, p *Producer, recs []*Record, promise func(*Record, error)) (int, error) {
	now := p.clock.Now()
	for i, r := range recs {
		if d.closed.Load() {
			return i, ErrClosed
		}
		if err := ctx.Err(); err != nil {
			return i, err
		}
		if r.Timestamp.IsZero() {
			r.Timestamp = now
		}
		r.Offset = -1
		n, err := d.partitionCount(ctx, p, r.Topic)
		if err != nil && (ctx.Err() != nil || p.FatalError() != nil) {
			return i, err
		}
		if err == nil {
			err = d.route(p, r, n)
		}
		if err != nil {
			err = notSent(err)
		}
		promise(r, err)
	}
	return len(recs), nil
}

// partitionCount is the topic's partition count: the fixed one, or the
// cluster's, waited for as a producer waits.
func (d *dryRouter) partitionCount(ctx context.Context, p *Producer, topic string) (int, error) {
	if d.partitions > 0 {
		return d.partitions, nil
	}
	return p.partitionCount(ctx, topic)
}

// route sets r.Partition to where the producer would place it among n
// partitions, or returns why it would refuse it.
func (d *dryRouter) route(p *Producer, r *Record, n int) error {
	explicit := p.explicit(r)
	if explicit && r.Partition >= int32(n) {
		return unknownPartition(r.Topic, r.Partition, n)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	tp := accumulator.TopicPartition{Topic: r.Topic, Partition: r.Partition}
	sticky := !explicit && r.Key == nil
	ts := r.Timestamp.UnixMilli()
	p.mu.Lock()
	if !explicit {
		tp.Partition = p.part.Partition(r.Topic, r.Key, n)
	}
	p.mu.Unlock()
	if tp.Partition < 0 {
		r.Partition = AnyPartition
		return noPartition(r.Topic)
	}
	res, err := d.fill.Append(tp, ts, r.Key, r.Value, r.Headers, sticky)
	if err == nil && res.AbortForNewBatch {
		p.mu.Lock()
		p.part.OnNewBatch(r.Topic, n, tp.Partition)
		tp.Partition = p.part.Partition(r.Topic, r.Key, n)
		p.mu.Unlock()
		_, err = d.fill.Append(tp, ts, r.Key, r.Value, r.Headers, false)
	}
	if err != nil {
		if !explicit {
			r.Partition = AnyPartition
		}
		return err
	}
	r.Partition = tp.Partition
	return nil
}
