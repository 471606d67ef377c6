package producecmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/cli/config"
	"github.com/kproduce/kproduce/internal/cli/input"
	"github.com/kproduce/kproduce/internal/cli/report"
	"github.com/kproduce/kproduce/pkg/accumulator"
	"github.com/kproduce/kproduce/pkg/sender"
)

// reportFlushInterval bounds how long a report waits in the stdout buffer.
const reportFlushInterval = 100 * time.Millisecond

// producerRun is one run of the command: the inputs, the producer and the
// reporter, wired together.
type producerRun struct {
	opts    *config.Options
	rep     *report.Reporter
	prod    *sender.Producer
	sources []string // input names, indexed by accumulator.Position.Source
	stopped atomic.Bool
	readErr atomic.Bool  // an input could not be read to its end
	read    atomic.Int64 // records read so far
	txn     *txnRun      // nil unless --transactional-id
	resume  *resumeRun   // nil unless --resume
	topics  *topicChooser
	// inputEnded is set when reading ended at the end of every input (not
	// at --count, not cut short).
	inputEnded atomic.Bool
	// sendScratch is the reading goroutine's memory for produceBatch.
	sendScratch sendScratch
	// completion is onCompletion's report, reused: the producer's callbacks
	// run one at a time on its Sender goroutine.
	completion report.Record

	pacer     *pacer         // --rate; nil without
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
	if opts.DryRun {
		return runDryRun(ctx, opts, s)
	}
	start := time.Now()
	inputs, err := openInputs(opts, s.In)
	if err != nil {
		cmdutil.PrintError(s.Err, err)
		return cmdutil.ExitUsage
	}
	defer input.Close(inputs)
	printPrompt(s.Err, s.In, &opts.Input, inputs)
	sizes := inputSizes(inputs)
	statsJSON, err := openStatsJSON(opts.StatsJSON, s.Out)
	if err != nil {
		cmdutil.PrintError(s.Err, err)
		return cmdutil.ExitUsage
	}
	defer statsJSON.close()
	run := &producerRun{opts: opts, pacer: newPacer(opts.Rate), stats: newRunStats(opts, start), statsJSON: statsJSON,
		topics: newTopicChooser(opts)}
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
	for _, in := range inputs {
		r.sources = append(r.sources, in.Name)
	}
	r.prog = newProgress(r.opts.Progress, s.Err, inputs)
	errOut := s.Err
	if r.prog != nil {
		errOut = r.prog // report and log lines erase the bar
	}
	rep := report.New(r.opts.Output, s.Out, errOut)
	r.rep = rep
	cfg, err := r.opts.ProducerConfig(rep.NeedsRecordBytes())
	if err != nil {
		return err
	}
	cfg.AfterCompletions = func() {
		_ = rep.Flush()
		if r.stats != nil {
			r.stats.endTurn()
		}
	}
	if r.prog != nil {
		cfg.Logger = cmdutil.NewLogger(r.prog, r.opts.LogLevel)
	}
	if r.opts.NoticeOut != nil {
		// Through the reporter, so that notices and failure reports never
		// interleave, and with the records still waiting.
		cfg.Network.Notify = report.NewNotices(rep.Errorf, r.waiting).Notify
	}
	if r.opts.TransactionalID != "" {
		r.txn = newTxnRun(r, rep.NeedsRecordBytes())
	}
	if !rep.PrintsDeliveries() && r.stats == nil && r.txn == nil && !r.opts.Resume {
		// -o none: a delivered batch is counted, its records are not
		// reported one by one (failures still are).
		cfg.Accumulator.OnDelivered = func(_ accumulator.TopicPartition, _ int64, n int) { rep.Delivered(n) }
	}
	if r.prod, err = sender.New(cfg, r.onCompletion); err != nil {
		return cmdutil.AsUsageError(err)
	}
	return nil
}

// waiting is the number of records read that have no report yet.
func (r *producerRun) waiting() int64 {
	delivered, failed := r.rep.Counts()
	return max(r.read.Load()-delivered-failed, 0)
}

// onCompletion is the producer's callback: one report per record. The
// checkpoint records of --resume get none: their failure fails their
// transaction.
func (r *producerRun) onCompletion(res *accumulator.Result) {
	if r.resume != nil && res.Position.Source == r.resume.source {
		return
	}
	if r.stats != nil && res.Err == nil {
		r.stats.delivered(res)
	}
	// Every field, one by one: a struct literal would be built aside and
	// copied whole.
	rep := &r.completion
	rep.Source, rep.Number = r.sources[res.Position.Source], res.Position.Record
	rep.Topic, rep.Partition, rep.Offset, rep.Timestamp = res.Topic, res.Partition, res.Offset, res.Timestamp
	rep.Key, rep.Value, rep.Err = res.Key, res.Value, res.Err
	r.report(res.Position.Source, rep)
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
	r.rep.Summary()
	statsErr := r.reportStats()
	_, failed := r.rep.Counts()
	switch {
	case interrupted:
		return cmdutil.ExitInterrupted
	case failed > 0 || r.prod.FatalError() != nil || r.rep.WriteErr() != nil || r.readErr.Load() || statsErr || (r.txn != nil && r.txn.failed()):
		return cmdutil.ExitFailed
	}
	return cmdutil.ExitOK
}

// openInputs opens the inputs of opts; a failure is a usage error.
func openInputs(opts *config.Options, stdin io.Reader) ([]input.Input, error) {
	inputs, err := input.Open(opts.Files, stdin)
	return inputs, cmdutil.AsUsageError(err)
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
