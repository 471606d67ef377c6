package main

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/kproduce/kproduce/pkg/accumulator"
	"github.com/kproduce/kproduce/pkg/sender"
)

// reportFlushInterval bounds how long a report waits in the stdout buffer.
const reportFlushInterval = 100 * time.Millisecond

// producerRun is one run of the command: the inputs, the producer and the
// reporter, wired together.
type producerRun struct {
	opts    *Options
	rep     *reporter
	prod    *sender.Producer
	sources []string // input names, indexed by accumulator.Position.Source
	stopped atomic.Bool
	readErr atomic.Bool // an input could not be read to its end
	txn     *txnRun     // nil unless --transactional-id
}

// runProduce produces the records of opts and returns the exit status.
func runProduce(ctx context.Context, opts *Options, s Streams) int {
	if opts.DryRun {
		return runDryRun(ctx, opts, s)
	}
	inputs, err := openInputs(opts, s.In)
	if err != nil {
		printError(s.Err, err)
		return exitUsage
	}
	defer closeInputs(inputs)
	rep, err := newReporter(opts.Output, s.Out, s.Err)
	if err != nil {
		printError(s.Err, asUsageError(err))
		return exitUsage
	}
	run := &producerRun{opts: opts, rep: rep}
	for _, in := range inputs {
		run.sources = append(run.sources, in.Name)
	}
	cfg, err := producerConfig(opts, rep.NeedsRecordBytes())
	if err != nil {
		printError(s.Err, err)
		return exitUsage
	}
	cfg.AfterCompletions = func() { _ = rep.Flush() }
	if opts.TransactionalID != "" {
		run.txn = newTxnRun(run, rep.NeedsRecordBytes())
	}
	if run.prod, err = sender.New(cfg, run.onCompletion); err != nil {
		printError(s.Err, asUsageError(err))
		return exitUsage
	}
	stopFlusher := run.startFlusher()
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		run.readInputs(ctx, inputs)
	}()
	select {
	case <-readDone:
	case <-ctx.Done():
	case <-run.prod.Stopped():
		// Authentication or TLS failed for good: a reader waiting on an idle
		// pipe must not keep the run alive.
	}
	if run.txn != nil {
		run.txn.finish(ctx)
	}
	run.close(ctx, readDone)
	stopFlusher()
	return run.finish(ctx)
}

// onCompletion is the producer's callback: one report per record.
func (r *producerRun) onCompletion(res *accumulator.Result) {
	r.report(res.Position.Source, &report{
		Source:    r.sources[res.Position.Source],
		Number:    res.Position.Record,
		Topic:     res.Topic,
		Partition: res.Partition,
		Offset:    res.Offset,
		Timestamp: res.Timestamp,
		Key:       res.Key,
		Value:     res.Value,
		Err:       res.Err,
	})
}

// startFlusher flushes the reports at least every reportFlushInterval, so a
// shell sees a streamed record's report promptly even when nothing else
// triggers a flush. It returns a function that stops it.
func (r *producerRun) startFlusher() func() { return startReportFlusher(r.rep) }

// startReportFlusher flushes rep every reportFlushInterval until the
// returned function is called.
func startReportFlusher(rep *reporter) func() {
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(reportFlushInterval)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				_ = rep.Flush()
			case <-done:
				return
			}
		}
	}()
	return func() { close(done); <-stopped }
}

// close waits for every record to have an outcome. After an interrupt the
// wait is bounded by --close-timeout; what is still pending then fails.
func (r *producerRun) close(ctx context.Context, readDone <-chan struct{}) {
	closeCtx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-ctx.Done():
			t := time.NewTimer(r.opts.CloseTimeout)
			defer t.Stop()
			select {
			case <-t.C:
				cancel()
			case <-closeCtx.Done():
			}
		case <-closeCtx.Done():
		}
	}()
	_ = r.prod.Close(closeCtx)
	// A reader blocked on an open pipe after an interrupt cannot be woken;
	// give one that is only finishing its last record a moment, then stop
	// reporting for it.
	select {
	case <-readDone:
	case <-time.After(50 * time.Millisecond):
	}
	r.stopped.Store(true)
}

// finish prints the closing lines and returns the exit status.
func (r *producerRun) finish(ctx context.Context) int {
	if r.txn != nil {
		r.txn.closed()
	}
	_ = r.rep.Flush()
	interrupted := ctx.Err() != nil
	if err := r.prod.FatalError(); err != nil {
		r.rep.Errorf("error: %v\n", err)
	}
	if err := r.rep.WriteErr(); err != nil && !interrupted {
		r.rep.Errorf("error: writing reports to stdout: %v\n", err)
	}
	r.rep.Summary()
	_, failed := r.rep.Counts()
	switch {
	case interrupted:
		return exitInterrupted
	case failed > 0 || r.prod.FatalError() != nil || r.rep.WriteErr() != nil || r.readErr.Load() || (r.txn != nil && r.txn.failed()):
		return exitFailed
	}
	return exitOK
}

// errInterrupted is the outcome of a record read when the run was
// interrupted before it could be handed to the producer.
var errInterrupted = errors.New("interrupted before the record was sent")

// sendError explains why the producer refused a record.
func sendError(err error) error {
	if errors.Is(err, context.Canceled) {
		return errInterrupted
	}
	return fmt.Errorf("not sent: %w", err)
}
