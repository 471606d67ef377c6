package main

import (
	"context"
	"errors"
	"io"
	"sync/atomic"
	"time"
)

// dryRun is one --dry-run: records are read and routed exactly as a real
// run would read and route them, and printed instead of sent.
type dryRun struct {
	opts    *Options
	rep     *reporter
	router  *dryRouter
	cluster *clusterPartitions // nil with --partitions
	stopped atomic.Bool        // the run ended: the reader must not report any more
	readErr atomic.Bool        // an input could not be read to its end
}

// runDryRun reads and routes the records of opts, prints where each would
// go and returns the exit status: 0 when every record routes, 1 when one
// cannot (too large, no topic, an unknown topic or partition) or the
// cluster could not be asked, 2 for usage errors, 130 when interrupted.
// Nothing is produced; without --partitions the cluster is asked for
// metadata only.
func runDryRun(ctx context.Context, opts *Options, s Streams) int {
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
	d := &dryRun{opts: opts, rep: rep}
	var counts partitionCounter = fixedPartitions(opts.DryRunPartitions)
	if opts.DryRunPartitions == 0 {
		fetch, closeFetch, err := newMetadataFunc(opts)
		if err != nil {
			printError(s.Err, asUsageError(err))
			return exitUsage
		}
		defer closeFetch()
		d.cluster = newClusterPartitions(fetch, opts.RequestTimeout)
		counts = d.cluster
	}
	if d.router, err = newDryRouter(opts, counts, nil); err != nil {
		printError(s.Err, err)
		return exitUsage
	}
	stopFlusher := startReportFlusher(rep)
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
func (d *dryRun) readInputs(ctx context.Context, inputs []namedInput) {
	var read int64
	for _, in := range inputs {
		rr, err := newRecordReader(d.opts, in.Name, in.R)
		if err != nil {
			d.rep.Errorf("error: %s: %v\n", in.Name, err)
			d.readErr.Store(true)
			return
		}
		var rec inputRecord
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
func (d *dryRun) route(ctx context.Context, rec *inputRecord) {
	rep := dryReport{report: report{Source: rec.Source, Number: rec.Number, Topic: rec.Topic,
		Partition: rec.Partition, Offset: -1, Timestamp: rec.Timestamp, Key: rec.Key, Value: rec.Value},
		Headers: rec.Headers}
	if rep.Topic == "" {
		rep.Topic = d.opts.Topic
	}
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
		p, err := d.router.route(ctx, rep.Topic, rep.Partition, rep.Timestamp, rec.Key, rec.Value, rec.Headers)
		if err != nil {
			rep.Err = sendError(err)
		} else {
			rep.Partition = p
		}
	}
	if d.stopped.Load() {
		return
	}
	d.rep.reportDry(&rep)
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
	d.rep.dryRunSummary()
	_, failed := d.rep.Counts()
	switch {
	case interrupted:
		return exitInterrupted
	case failed > 0 || d.fatal() != nil || d.rep.WriteErr() != nil || d.readErr.Load():
		return exitFailed
	}
	return exitOK
}
