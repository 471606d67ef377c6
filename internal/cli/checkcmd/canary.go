package checkcmd

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/cli/config"
	"github.com/kproduce/kproduce/internal/cli/report"
	"github.com/kproduce/kproduce/pkg/protocol"
	"github.com/kproduce/kproduce/pkg/sender"
)

// CanaryHeader is the header every canary record carries; its value is
// the run id.
const CanaryHeader = "kproduce-canary"

// canary is one canary record and its outcome.
type canary struct {
	partition int32
	value     []byte
	sent      time.Time
	done      time.Time
	offset    int64
	err       error
	finished  bool
	// The read-back: when the canary was read back, or why it was not.
	readAt   time.Time
	readErr  error
	readDone bool
}

// canaryRun produces the canaries of one check.
type canaryRun struct {
	topic    string
	runID    string
	mu       sync.Mutex // guards canaries' outcomes (set on the sender and read-back goroutines)
	canaries []canary
	acked    chan<- int // receives each delivered canary's index, for the read-back; nil: none
}

// newCanaryRun plans count canaries for each partition.
func newCanaryRun(topic, runID string, partitions []int32, count int64) *canaryRun {
	r := &canaryRun{topic: topic, runID: runID}
	for _, p := range partitions {
		for range count {
			r.canaries = append(r.canaries, canary{partition: p})
		}
	}
	return r
}

// canaryProducerOptions are the options of the canaries' producer:
// acks=all, no linger, every record given up after timeout, each canary
// to the partition it names, no topic created.
func canaryProducerOptions(opts *config.Connection, timeout time.Duration) []sender.Opt {
	return append(opts.ProducerOptions(),
		sender.Idempotence(false), // one canary per partition and request: nothing to deduplicate
		sender.RequestTimeout(min(opts.RequestTimeout, timeout)),
		sender.MaxBlock(timeout),
		sender.AllowAutoTopicCreation(false),
		sender.Linger(0),
		sender.DeliveryTimeout(timeout),
		sender.WithPartitioner(sender.ManualPartitioner(nil)),
	)
}

// produce sends every canary and waits for their outcomes; each canary
// has timeout to be delivered. It returns the producer's fatal error
// (authentication, TLS), if any.
func (r *canaryRun) produce(ctx context.Context, opts []sender.Opt, timeout time.Duration) error {
	prod, err := sender.New(opts...)
	if err != nil {
		return cmdutil.AsUsageError(err)
	}
	// Learn the partitions first, so that no canary's latency includes
	// the producer's first metadata fetch.
	wctx, cancel := context.WithTimeout(ctx, timeout)
	_, err = prod.PartitionsFor(wctx, r.topic)
	cancel()
	start := time.Now()
	for i := range r.canaries {
		if err != nil {
			// Its partitions could not be learned: no canary can go.
			r.finish(i, -1, err)
			continue
		}
		c := &r.canaries[i]
		now := time.Now()
		rec := &sender.Record{
			Topic: r.topic, Partition: c.partition, Timestamp: now, Opaque: i,
			Value:   fmt.Appendf(nil, "kproduce check %s canary %d", now.UTC().Format(time.RFC3339Nano), i+1),
			Headers: []protocol.Header{{Key: CanaryHeader, Value: []byte(r.runID)}},
		}
		r.mu.Lock()
		c.sent, c.value = now, rec.Value
		r.mu.Unlock()
		prod.Produce(ctx, rec, r.promise)
	}
	// Every canary ends by its delivery timeout; the bound on Close is a
	// safety net (what is still pending then fails as not delivered).
	closeCtx, cancelClose := context.WithDeadline(ctx, start.Add(2*timeout+time.Second))
	defer cancelClose()
	_ = prod.Close(closeCtx)
	return prod.FatalError()
}

// promise records a canary's outcome.
func (r *canaryRun) promise(rec *sender.Record, err error) {
	r.finish(rec.Opaque.(int), rec.Offset, err)
}

// finish records the outcome of canary i once.
func (r *canaryRun) finish(i int, offset int64, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := &r.canaries[i]
	if c.finished {
		return
	}
	c.finished, c.done, c.offset, c.err = true, time.Now(), offset, err
	if err == nil && r.acked != nil {
		r.acked <- i // buffered for every canary: never blocks
	}
}

// readDone records the read-back of canary i: read at at, or failed with
// err.
func (r *canaryRun) readDone(i int, at time.Time, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := &r.canaries[i]
	c.readDone, c.readAt, c.readErr = true, at, err
}

// result is partition p's outcome, and the latencies of its delivered
// canaries (acknowledgement, and read-back when readBack is set).
func (r *canaryRun) result(p int32, leader int32, readBack bool) (partitionResult, []time.Duration, []time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	res := partitionResult{Partition: p, Leader: leader, OK: true}
	var lat, readLat []time.Duration
	var slowest, slowestRead time.Duration
	var last int64 = -1
	for i := range r.canaries {
		c := &r.canaries[i]
		if c.partition != p {
			continue
		}
		switch {
		case !c.finished:
			res.fail("timed out", errors.New("no outcome before the check ended"))
		case c.err != nil:
			res.fail(report.FailureReason(c.err), c.err)
		default:
			d := c.done.Sub(c.sent)
			lat = append(lat, d)
			slowest = max(slowest, d)
			last = max(last, c.offset)
			if !readBack {
				continue
			}
			switch {
			case !c.readDone:
				res.fail("not read back", fmt.Errorf("the check ended before canary %d at offset %d was read", i+1, c.offset))
			case c.readErr != nil:
				res.fail("not read back", c.readErr)
			default:
				rd := c.readAt.Sub(c.sent)
				readLat = append(readLat, rd)
				slowestRead = max(slowestRead, rd)
			}
		}
	}
	if res.OK {
		res.Offset, res.LatencyMs = &last, ms(slowest)
		if readBack {
			res.ReadLatencyMs = ms(slowestRead)
		}
	}
	return res, lat, readLat
}

// fail marks the partition failed, keeping the first reason.
func (p *partitionResult) fail(reason string, detail error) {
	if !p.OK {
		return
	}
	p.OK = false
	d := detail.Error()
	p.Error, p.Detail = &reason, &d
}
