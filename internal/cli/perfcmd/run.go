package perfcmd

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/pace"
	"github.com/kproduce/kproduce/pkg/sender"
)

// catchUpWindow is how far behind --throughput a run may fall (a stall of
// the producer, a late timer) and still catch up: the pacer's bucket.
const catchUpWindow = 250 * time.Millisecond

// perfRun is one run: the generator hands batches of records to the
// producer, the collector gathers their outcomes, the output prints them.
type perfRun struct {
	opts    *Options
	s       cmdutil.Streams
	out     output
	prod    *sender.Producer
	gen     *generator
	col     *collector
	pacer   *pace.Pacer      // nil without --throughput
	leaders map[int32]int32  // each partition's leader when the run started
	handed  int64            // records handed to the producer
	txn     transactionState // with --transaction-duration-ms
}

// transactionState is the state of a transactional run's transactions.
type transactionState struct {
	open               bool
	start              time.Time // when the open one began
	committed, aborted int64
}

// runPerf runs the load test of o and returns the error that gives the
// exit status: a usage error not printed yet (the producer refused its
// options), or cmdutil.Exit once everything is printed.
func runPerf(ctx context.Context, o *Options, s cmdutil.Streams) error {
	r := &perfRun{opts: o, s: s, out: newOutput(o, s.Out), gen: newGenerator(o)}
	r.col = newCollector(o.ReportingInterval, o.Producer.Topic, r.out, s.Err)
	opts, err := o.Producer.ProducerOptions(false)
	if err == nil {
		col := r.col
		r.prod, err = sender.New(append(opts, sender.AfterPromises(func() { col.endTurn() }))...)
	}
	if err != nil {
		return cmdutil.AsUsageError(err)
	}
	r.out.preamble(o)
	start, err := r.prepare(ctx)
	if err == nil {
		err = r.handOverAll(ctx, start)
	}
	err = r.finish(ctx, err)
	return cmdutil.Exit(r.report(ctx, err, time.Now()))
}

// prepare waits for the topic's metadata (and, for transactions, the
// producer id), so that the clock starts when records can go: it returns
// the run's start.
func (r *perfRun) prepare(ctx context.Context) (time.Time, error) {
	parts, err := r.prod.PartitionsFor(ctx, r.opts.Producer.Topic)
	if err != nil {
		return time.Time{}, err
	}
	r.leaders = make(map[int32]int32, len(parts))
	for _, p := range parts {
		r.leaders[p.Partition] = p.Leader
	}
	if r.opts.TransactionDuration > 0 {
		if err := r.prod.InitTransactions(ctx); err != nil {
			return time.Time{}, err
		}
	}
	start := time.Now()
	r.col.begin(start, len(parts))
	r.pacer = pace.New(r.opts.Throughput, catchUpWindow) // from the start: no burst of what the wait would have let go
	return start, nil
}

// handOverAll makes the records and hands them to the producer a batch at
// a time, paced by --throughput, until --num-records were handed over,
// --duration passed, or something stopped the run (its error).
func (r *perfRun) handOverAll(ctx context.Context, start time.Time) error {
	paceCtx := ctx
	if r.opts.Duration > 0 {
		var cancel context.CancelFunc
		paceCtx, cancel = context.WithDeadline(ctx, start.Add(r.opts.Duration))
		defer cancel()
	}
	col := r.col
	promise := func(rec *sender.Record, err error) { col.promise(rec, err) }
	for {
		n := r.nextBatch()
		if n == 0 {
			return nil
		}
		at := time.Now()
		if r.pacer != nil {
			var err error
			if n, at, err = r.pacer.WaitN(paceCtx, n); err != nil {
				return r.paceStopped(ctx, err)
			}
		}
		if r.opts.Duration > 0 && at.Sub(start) >= r.opts.Duration {
			return nil
		}
		if err := r.begin(at); err != nil {
			return err
		}
		steady := r.opts.WarmupRecords > 0 && r.handed >= r.opts.WarmupRecords
		h := col.handOver(at, n, steady)
		k, err := r.prod.ProduceBatch(ctx, r.gen.fill(h.refs[:n]), promise)
		col.notHanded(h, n-k)
		r.handed += int64(k)
		if err != nil {
			return err
		}
		if err := r.maybeCommit(ctx, at); err != nil {
			return err
		}
	}
}

// nextBatch is the size of the next batch: at most the generator's
// limit, no more than --num-records leaves, and never across the end of
// the warm-up; 0 when every record was handed over.
func (r *perfRun) nextBatch() int {
	n := int64(r.gen.batchLimit())
	if r.opts.NumRecords > 0 {
		n = min(n, r.opts.NumRecords-r.handed)
	}
	if w := r.opts.WarmupRecords; r.handed < w {
		n = min(n, w-r.handed)
	}
	return int(n)
}

// paceStopped is what ends the run when the pacer's wait ended early: the
// end of --duration is the run's end, not an error.
func (r *perfRun) paceStopped(ctx context.Context, err error) error {
	if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
		return nil
	}
	return err
}

// begin opens a transaction when the run is transactional and none is
// open.
func (r *perfRun) begin(at time.Time) error {
	if r.opts.TransactionDuration == 0 || r.txn.open {
		return nil
	}
	if err := r.prod.BeginTransaction(); err != nil {
		return err
	}
	r.txn.open, r.txn.start = true, at
	return nil
}

// maybeCommit commits the open transaction once it is
// --transaction-duration-ms old.
func (r *perfRun) maybeCommit(ctx context.Context, at time.Time) error {
	if !r.txn.open || at.Sub(r.txn.start) < r.opts.TransactionDuration {
		return nil
	}
	return r.end(ctx, nil)
}

// end ends the open transaction: it commits it when the run is not
// stopping because of stop, aborts it otherwise. A transaction that
// cannot be committed is aborted; the error says why.
func (r *perfRun) end(ctx context.Context, stop error) error {
	r.txn.open = false
	if stop == nil {
		err := r.prod.CommitTransaction(ctx)
		if err == nil {
			r.txn.committed++
			return nil
		}
		if errors.Is(err, sender.ErrTransactionAbortable) {
			_ = r.prod.AbortTransaction(ctx)
		}
		r.txn.aborted++
		return fmt.Errorf("transaction aborted: %w", err)
	}
	r.txn.aborted++
	if err := r.prod.AbortTransaction(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("%w (aborting the open transaction: %w)", stop, err)
	}
	return stop
}

// finish ends the open transaction (committed unless the run stopped
// because of err) and waits for every record to have its outcome; after
// an interrupt within --close-timeout. It returns why the run stopped
// early, nil when it did not.
func (r *perfRun) finish(ctx context.Context, err error) error {
	closeCtx, cancel := cmdutil.BoundAfterInterrupt(ctx, r.opts.Producer.CloseTimeout)
	defer cancel()
	if r.txn.open {
		err = r.end(closeCtx, err)
	}
	_ = r.prod.Close(closeCtx)
	if err == nil {
		err = r.prod.FatalError()
	}
	return err
}

// report prints the summary and the failures, and returns the exit
// status: 0 only when every record handed over was acknowledged.
func (r *perfRun) report(ctx context.Context, stop error, end time.Time) int {
	res := r.col.result(end, r.leaders, r.prod.Stats())
	res.Settings = settingsOf(r.opts)
	if r.opts.TransactionDuration > 0 {
		res.Transactions = &TransactionResult{Committed: r.txn.committed, Aborted: r.txn.aborted}
	}
	if r.opts.Histogram {
		res.Histogram = histogramRows(r.col.total.latency)
	}
	interrupted := ctx.Err() != nil
	if stop != nil && !interrupted {
		msg := stop.Error()
		res.Error = &msg
	}
	writeErr := r.out.summary(res, r.opts)
	r.printFailures(res)
	switch {
	case writeErr != nil:
		cmdutil.PrintError(r.s.Err, fmt.Errorf("writing the summary: %w", writeErr))
		return cmdutil.ExitFailed
	case interrupted:
		return cmdutil.ExitInterrupted
	case stop != nil:
		cmdutil.PrintError(r.s.Err, stop)
		return cmdutil.ExitFailed
	case res.Failed > 0 || r.txn.aborted > 0:
		return cmdutil.ExitFailed
	}
	return cmdutil.ExitOK
}

// printFailures prints on stderr how many records failed, by reason.
func (r *perfRun) printFailures(res *Result) {
	if res.Failed == 0 {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "kproduce perf: %d of %d records failed:", res.Failed, res.Failed+res.Records)
	for i, rc := range r.col.reasons {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, " %d %s (first: %s)", rc.count, rc.reason, rc.first)
	}
	b.WriteByte('\n')
	_, _ = fmt.Fprint(r.s.Err, b.String())
}
