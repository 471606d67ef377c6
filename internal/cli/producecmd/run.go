package producecmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sync/atomic"
	"time"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/cli/config"
	"github.com/kproduce/kproduce/internal/cli/input"
	"github.com/kproduce/kproduce/internal/cli/report"
	"github.com/kproduce/kproduce/internal/pace"
	"github.com/kproduce/kproduce/pkg/sender"
)

// reportFlushInterval bounds how long a report waits in the stdout buffer.
const reportFlushInterval = 100 * time.Millisecond

// producerRun is one run of the command: the inputs, the producer and the
// reporter, wired together. A dry run is the same run with a producer that
// places records without sending them (sender.DryRun).
type producerRun struct {
	opts    *config.Options
	rep     *report.Reporter
	prod    *sender.Producer
	dry     bool     // --dry-run: reports say where records would go
	sources []string // input names, by input index
	stopped atomic.Bool
	readErr atomic.Bool  // an input could not be read to its end
	read    atomic.Int64 // records read so far
	txn     *txnRun      // nil unless --transactional-id
	resume  *resumeRun   // nil unless --resume
	// inputEnded is set when reading ended at the end of every input (not
	// at --count, not cut short).
	inputEnded atomic.Bool
	// send is the reading goroutine's memory for the records it hands to
	// the producer.
	send []*sender.Record
	// origins are the records' Origins (their Opaque), reused from read to
	// read once the producer is done with a read's records.
	origins input.OriginPool
	// promiseFn is the promise handed to the producer: promise, or the
	// reporter's Report itself when that is all promise would do.
	promiseFn func(*sender.Record, error)

	pacer     *pace.Pacer    // --rate; nil without
	prog      *progress      // --progress; nil when no bar is drawn
	stats     *runStats      // --stats, --stats-json; nil without either
	statsJSON *statsJSONFile // --stats-json; nil without
}

// runProduce produces the records of opts and returns the exit status.
func runProduce(ctx context.Context, opts *config.Options, s cmdutil.Streams) int {
	if err := opts.ResolveSchemas(ctx, s.Err); err != nil {
		cmdutil.PrintError(s.Err, err)
		return cmdutil.ExitCode(err)
	}
	start := time.Now()
	inputs, err := openInputs(opts, s.In)
	if err != nil {
		cmdutil.PrintError(s.Err, err)
		return cmdutil.ExitUsage
	}
	defer input.Close(inputs)
	printPrompt(s.Err, s.In, &opts.Input, inputs)
	var sizes []int64 // for --resume's line
	if opts.Resume {
		sizes = inputSizes(inputs)
	}
	opts.Input.OnTopicOverride = topicOverrideWarning(opts.Logger)
	run := &producerRun{opts: opts, dry: opts.DryRun}
	if !run.dry {
		run.pacer, run.stats = pace.New(opts.Rate, pace.MinWindow), newRunStats(opts, start)
		if run.statsJSON, err = openStatsJSON(opts.StatsJSON, s.Out); err != nil {
			cmdutil.PrintError(s.Err, err)
			return cmdutil.ExitUsage
		}
		defer run.statsJSON.close()
	}
	if err := run.setUp(s, inputs); err != nil {
		cmdutil.PrintError(s.Err, err)
		return cmdutil.ExitUsage
	}
	if opts.Resume {
		if code, stop := run.startResume(ctx, inputs, sizes); stop {
			return code
		}
	}
	stopFlusher := run.rep.StartFlusher(reportFlushInterval)
	run.prog.start(run.rep.Counts)
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
	run.prog.finish()
	return run.finish(ctx)
}

// setUp creates the progress bar, the reporter and the producer. Its
// errors are usage errors.
func (r *producerRun) setUp(s cmdutil.Streams, inputs []input.Input) error {
	r.sources = make([]string, len(inputs))
	for i, in := range inputs {
		r.sources[i] = in.Name
	}
	if !r.dry {
		r.prog = newProgress(r.opts.Progress, s.Err, inputs)
	}
	errOut := s.Err
	if r.prog != nil {
		errOut = r.prog // report and log lines erase the bar
	}
	rep := report.New(r.opts.Output, s.Out, errOut)
	r.rep = rep
	// A dry run prints keys and headers; a report may print keys and values.
	opts, err := r.opts.ProducerOptions(r.dry || rep.NeedsRecordBytes())
	if err != nil {
		return err
	}
	opts = append(opts, sender.AfterPromises(func() {
		_ = rep.Flush()
		if r.stats != nil {
			r.stats.endTurn()
		}
	}))
	if r.prog != nil {
		opts = append(opts, sender.WithLogger(cmdutil.Slog(cmdutil.NewLogger(r.prog, r.opts.LogLevel))))
	}
	if r.opts.NoticeOut != nil {
		// Through the reporter, so that notices and failure reports never
		// interleave, and with the records still waiting.
		opts = append(opts, sender.OnNotice(report.NewNotices(rep.Errorf, r.waiting).Notify))
	}
	if r.opts.TransactionalID != "" && !r.dry {
		r.txn = newTxnRun(r, rep.NeedsRecordBytes())
	}
	countOnly := !rep.PrintsDeliveries() && r.stats == nil && r.txn == nil && !r.opts.Resume && !r.dry
	if countOnly {
		// -o none: delivered records are counted, not reported one by one
		// (failures still are).
		opts = append(opts, sender.SkipDeliveredPromises())
	}
	r.promiseFn = r.promise
	if r.stats == nil && r.txn == nil && !r.dry {
		r.promiseFn = rep.Promise()
	}
	if r.prod, err = sender.New(opts...); err != nil {
		return cmdutil.AsUsageError(err)
	}
	rep.SetFatal(r.prod.FatalError) // finish prints it once
	if countOnly {
		rep.CountDeliveriesWith(func() int64 { return r.prod.Stats().Delivered })
	}
	return nil
}

// waiting is the number of records read that have no report yet.
func (r *producerRun) waiting() int64 {
	delivered, failed := r.rep.Counts()
	return max(r.read.Load()-delivered-failed, 0)
}

// promise is the producer's promise for every input record of the run:
// one report each. (The checkpoints of --resume have their own.)
func (r *producerRun) promise(rec *sender.Record, err error) {
	if r.stats != nil {
		if err == nil {
			r.stats.delivered(rec)
		} else if errors.Is(err, sender.ErrNotSent) {
			r.stats.sentBytes(-int64(len(rec.Key) + len(rec.Value)))
		}
	}
	r.report(rec, err)
}

// report prints a record's report, or holds it until its transaction ends.
func (r *producerRun) report(rec *sender.Record, err error) {
	switch {
	case r.dry:
		r.rep.ReportDry(rec, err)
	case r.txn != nil:
		r.txn.hold(rec, err)
	default:
		r.rep.Report(rec, err)
	}
}

// close waits for every record to have an outcome. After an interrupt the
// wait is bounded by --close-timeout; what is still pending then fails.
func (r *producerRun) close(ctx context.Context, readDone <-chan struct{}) {
	closeCtx, cancel := cmdutil.BoundAfterInterrupt(ctx, r.opts.CloseTimeout)
	defer cancel()
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
	if interrupted && r.txn != nil && r.txn.committedBeforeSignal() {
		interrupted = false
		r.rep.Errorf(lateSignalLine)
	}
	if err := r.prod.FatalError(); err != nil {
		r.rep.Errorf("error: %v\n", err)
	}
	if err := r.rep.WriteErr(); err != nil && !interrupted {
		r.rep.Errorf("error: writing reports to stdout: %v\n", err)
	}
	statsErr := false
	if r.dry {
		r.rep.DryRunSummary()
	} else {
		r.rep.Summary()
		statsErr = r.reportStats()
	}
	_, failed := r.rep.Counts()
	switch {
	case interrupted:
		return cmdutil.ExitInterrupted
	case failed > 0 || r.prod.FatalError() != nil || r.rep.WriteErr() != nil || r.readErr.Load() || statsErr || (r.txn != nil && r.txn.failed()):
		return cmdutil.ExitFailed
	}
	return cmdutil.ExitOK
}

// openInputs opens the inputs of opts; a failure is a usage error, which
// says so when the missing file is named like another tool's verb.
func openInputs(opts *config.Options, stdin io.Reader) ([]input.Input, error) {
	inputs, err := input.Open(opts.Files, stdin)
	var pathErr *fs.PathError
	if errors.As(err, &pathErr) && errors.Is(err, fs.ErrNotExist) {
		if hint := config.VerbFileHint(pathErr.Path); hint != "" {
			err = fmt.Errorf("%w; %s", err, hint)
		}
	}
	return inputs, cmdutil.AsUsageError(err)
}

// errInterrupted is the outcome of a record read when the run was
// interrupted before it could be handed to the producer.
var errInterrupted = errors.New("interrupted before the record was sent")

// sendError explains why the producer did not take a record. After an
// interrupt (ctx ended) a record the producer was closed on, or its wait
// cut short, was not sent because of the interrupt, and says so.
func sendError(ctx context.Context, err error) error {
	if errors.Is(err, context.Canceled) || (ctx.Err() != nil && errors.Is(err, sender.ErrClosed)) {
		return errInterrupted
	}
	if errors.Is(err, sender.ErrNotSent) {
		return err
	}
	return fmt.Errorf("%w: %w", sender.ErrNotSent, err)
}
