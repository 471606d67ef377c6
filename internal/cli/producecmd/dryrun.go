package producecmd

import (
	"context"
	"errors"
	"io"
	"sync/atomic"
	"time"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/cli/config"
	"github.com/kproduce/kproduce/internal/cli/input"
	"github.com/kproduce/kproduce/internal/cli/report"
	"github.com/kproduce/kproduce/pkg/admin"
	"github.com/kproduce/kproduce/pkg/sender"
)

// dryRun is one --dry-run: records are read and routed exactly as a real
// run would read and route them, and printed instead of sent.
type dryRun struct {
	opts    *config.Options
	rep     *report.Reporter
	router  *sender.Router
	cluster *sender.MetadataPartitions // nil with --partitions
	stopped atomic.Bool                // the run ended: the reader must not report any more
	readErr atomic.Bool                // an input could not be read to its end
	topics  *topicChooser
}

// runDryRun reads and routes the records of opts, prints where each would
// go and returns the exit status: 0 when every record routes, 1 when one
// cannot (too large, no topic, an unknown topic or partition) or the
// cluster could not be asked, 2 for usage errors, 130 when interrupted.
// Nothing is produced; without --partitions the cluster is asked for
// metadata only.
func runDryRun(ctx context.Context, opts *config.Options, s cmdutil.Streams) int {
	inputs, err := openInputs(opts, s.In)
	if err != nil {
		cmdutil.PrintError(s.Err, err)
		return cmdutil.ExitUsage
	}
	defer input.Close(inputs)
	printPrompt(s.Err, s.In, &opts.Input, inputs)
	rep := report.New(opts.Output, s.Out, s.Err)
	d := &dryRun{opts: opts, rep: rep, topics: newTopicChooser(opts)}
	var counts sender.PartitionCounter = sender.FixedPartitions(opts.DryRunPartitions)
	if opts.DryRunPartitions == 0 {
		// The admin client's Metadata never asks the broker to create a
		// topic.
		client, err := admin.New(opts.AdminConfig())
		if err != nil {
			cmdutil.PrintError(s.Err, cmdutil.AsUsageError(err))
			return cmdutil.ExitUsage
		}
		defer client.Close()
		d.cluster = sender.NewMetadataPartitions(client.Metadata, opts.RequestTimeout)
		counts = d.cluster
	}
	cfg, err := opts.ProducerConfig(false)
	if err == nil {
		d.router, err = sender.NewRouter(cfg, counts)
	}
	if err != nil {
		cmdutil.PrintError(s.Err, cmdutil.AsUsageError(err))
		return cmdutil.ExitUsage
	}
	stopFlusher := rep.StartFlusher(reportFlushInterval)
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		d.readInputs(ctx, inputs)
	}()
	select {
	case <-readDone:
	case <-ctx.Done():
		// A reader blocked on an open pipe cannot be woken: give one that
		// is finishing a record a moment, then stop reporting for it.
		select {
		case <-readDone:
		case <-time.After(50 * time.Millisecond):
		}
	}
	d.stopped.Store(true)
	stopFlusher()
	return d.finish(ctx)
}

// readInputs reads every input in order and routes each record, until the
// inputs end, --count records were read, the run is interrupted, stdout is
// closed or the cluster cannot be asked.
func (d *dryRun) readInputs(ctx context.Context, inputs []input.Input) {
	var read int64
	for _, in := range inputs {
		rr, err := input.NewReader(&d.opts.Input, in.Name, in.R)
		if err != nil {
			d.rep.Errorf("error: %s: %v\n", in.Name, err)
			d.readErr.Store(true)
			return
		}
		var rec input.Record
		for d.opts.Count == 0 || read < d.opts.Count {
			if d.shouldStop(ctx) {
				return
			}
			err := rr.Next(&rec)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				d.rep.Errorf("error: %s: read after record %d: %v\n", in.Name, rec.Number, err)
				d.readErr.Store(true)
				break
			}
			if d.stopped.Load() {
				return
			}
			read++
			d.route(ctx, &rec)
		}
	}
}

// shouldStop reports whether reading must end early.
func (d *dryRun) shouldStop(ctx context.Context) bool {
	return ctx.Err() != nil || d.stopped.Load() || d.rep.WriteErr() != nil || d.fatal() != nil
}

// fatal returns the error that ended asking the cluster, or nil.
func (d *dryRun) fatal() error {
	if d.cluster == nil {
		return nil
	}
	return d.cluster.Fatal()
}

// route places one record as the producer would and reports it; a record
// the producer would refuse is reported failed with the same reason.
func (d *dryRun) route(ctx context.Context, rec *input.Record) {
	rep := report.DryRecord{Record: report.Record{Source: rec.Source, Number: rec.Number, Topic: rec.Topic,
		Partition: rec.Partition, Offset: -1, Timestamp: rec.Timestamp, Key: rec.Key, Value: rec.Value},
		Headers: rec.Headers}
	rep.Topic = d.topics.choose(rec.Topic)
	if rep.Partition < 0 {
		rep.Partition = d.opts.Partition
	}
	if rep.Timestamp == 0 {
		readAt := rec.ReadAt
		if readAt.IsZero() {
			readAt = time.Now()
		}
		rep.Timestamp = readAt.UnixMilli()
	}
	rep.Err = rec.Err
	if rep.Err == nil && rep.Topic == "" {
		rep.Err = errNoTopic
	}
	if rep.Err == nil {
		p, err := d.router.Route(ctx, rep.Topic, rep.Partition, rep.Timestamp, rec.Key, rec.Value, rec.Headers)
		if err != nil {
			rep.Err = sendError(err)
		} else {
			rep.Partition = p
		}
	}
	if d.stopped.Load() {
		return
	}
	d.rep.ReportDry(&rep)
}

// finish prints the closing lines and returns the exit status.
func (d *dryRun) finish(ctx context.Context) int {
	_ = d.rep.Flush()
	interrupted := ctx.Err() != nil
	if err := d.fatal(); err != nil {
		d.rep.Errorf("error: %v\n", err)
	}
	if err := d.rep.WriteErr(); err != nil && !interrupted {
		d.rep.Errorf("error: writing reports to stdout: %v\n", err)
	}
	d.rep.DryRunSummary()
	_, failed := d.rep.Counts()
	switch {
	case interrupted:
		return cmdutil.ExitInterrupted
	case failed > 0 || d.fatal() != nil || d.rep.WriteErr() != nil || d.readErr.Load():
		return cmdutil.ExitFailed
	}
	return cmdutil.ExitOK
}
