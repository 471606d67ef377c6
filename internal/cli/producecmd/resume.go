package producecmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/kproduce/kproduce/internal/checkpoint"
	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/cli/config"
	"github.com/kproduce/kproduce/internal/cli/input"
	"github.com/kproduce/kproduce/pkg/admin"
	"github.com/kproduce/kproduce/pkg/sender"
)

// resumeRun is the --resume side of a transactional run: it reads the
// checkpoint the earlier runs committed, checks and skips what they
// committed, and adds a checkpoint to every transaction (see package
// checkpoint for why that is exactly once).
type resumeRun struct {
	r         *producerRun
	tracker   *checkpoint.Tracker
	partition int32 // of the checkpoint topic, for this transactional id
	skipped   int64 // records committed by the earlier runs
	found     *checkpoint.Found
	complete  []bool  // per input: read to its end by the earlier runs
	after     []int64 // per input: the number of the last record committed
	lastDone  bool    // the last committed checkpoint says the load is done
}

// resumeOptions are the options a resumed run must share with the runs
// it takes up (config.Options.ResumeOptions).
func resumeOptions(o *config.Options) map[string]string { return o.ResumeOptions() }

// errNothingLeft ends a resumed run whose load the earlier runs finished.
var errNothingLeft = errors.New("nothing left to do")

// prepareResume initializes the transactional producer (fencing the
// earlier runs' producer and completing its last transaction), reads the
// last committed checkpoint and skips the committed part of the inputs,
// checking it, then checks that no checkpoint of the run can be too
// large for a request. sizes are the inputs' sizes (-1: unknown). A
// changed input is an error wrapping checkpoint.ErrMismatch, a checkpoint
// that could be too large errCheckpointTooLarge; a finished load is
// errNothingLeft.
func (r *producerRun) prepareResume(ctx context.Context, inputs []input.Input, sizes []int64) error {
	ctx, cancel := context.WithTimeout(ctx, r.opts.DeliveryTimeout)
	defer cancel()
	// The producer learns the checkpoint topic and the records' topic
	// while it initializes: neither the first checkpoint nor the first
	// record then waits for metadata.
	id, topic := r.opts.TransactionalID, r.opts.ResumeTopic
	lookups := make(chan error, 2)
	lookup := func(topic string) {
		_, err := r.prod.PartitionsFor(ctx, topic)
		lookups <- err
	}
	go lookup(topic)
	if r.opts.Topic != "" {
		go lookup(r.opts.Topic)
	} else {
		lookups <- nil
	}
	if err := r.prod.InitTransactions(ctx); err != nil {
		return fmt.Errorf("--resume: %w", err)
	}
	ac, err := admin.New(r.opts.AdminConfig())
	if err != nil {
		return fmt.Errorf("--resume: %w", err)
	}
	defer ac.Close()
	found, err := checkpoint.Load(ctx, checkpoint.NewClient(ac), topic, id)
	if err != nil {
		return fmt.Errorf("--resume: %w", err)
	}
	parts, err := r.prod.PartitionsFor(ctx, topic)
	if err != nil {
		return fmt.Errorf("--resume: checkpoint topic %s: %w", topic, err)
	}
	<-lookups // the records' topic: its error, if any, is each record's
	<-lookups
	n := len(parts)
	names := r.sources
	res := &resumeRun{r: r, tracker: checkpoint.NewTracker(id, names, resumeOptions(r.opts)), found: found,
		partition: checkpoint.Partition(id, n),
		complete:  make([]bool, len(names)), after: make([]int64, len(names))}
	r.resume = res
	if found != nil {
		if err := res.takeUp(inputs); err != nil {
			return err
		}
	}
	if err := res.checkSize(); err != nil {
		return err
	}
	if found != nil {
		r.rep.Errorf("%s\n", res.resumedLine(sizes))
	}
	return nil
}

// takeUp checks the inputs and options against the checkpoint found and
// skips what it committed; a finished load is errNothingLeft.
func (res *resumeRun) takeUp(inputs []input.Input) error {
	cp := res.found.Checkpoint
	if err := checkpoint.CheckInputs(cp, res.r.sources, resumeOptions(res.r.opts)); err != nil {
		return err
	}
	if err := res.skip(inputs); err != nil {
		return err
	}
	if cp.Done || (res.r.opts.Count > 0 && cp.Records >= res.r.opts.Count) {
		return errNothingLeft
	}
	return nil
}

// skip reads the committed part of each input, checking it, and takes up
// the hashes from there.
func (res *resumeRun) skip(inputs []input.Input) error {
	cp := res.found.Checkpoint
	if err := res.tracker.Resume(cp, func(i int) io.Reader { return inputs[i].R }); err != nil {
		return err
	}
	first := cp.FoldedCount()
	for i := range first {
		res.complete[i] = true
	}
	for i, src := range cp.Sources {
		res.complete[first+i], res.after[first+i] = src.Complete, src.Records
	}
	res.skipped, res.lastDone = cp.Records, cp.Done
	return nil
}

// resumedLine says where the run takes up the load.
func (res *resumeRun) resumedLine(sizes []int64) string {
	cp := res.found.Checkpoint
	last := cp.Sources[len(cp.Sources)-1] // Parse: there is one when any source was begun
	first := cp.FoldedCount()
	toGo, known := int64(0), true
	for i, size := range sizes {
		switch {
		case res.complete[i]:
		case size < 0:
			known = false
		case i >= first && i < cp.Begun():
			toGo += max(size-cp.Sources[i-first].Bytes, 0)
		default:
			toGo += size
		}
	}
	left := "the rest of the input to go"
	if known {
		left = formatBytes(toGo) + " to go"
	}
	return fmt.Sprintf("resumed after %s:%s: %s records committed by an earlier run (%s), %s",
		last.Name, thousands(last.Records), thousands(cp.Records), pluralTxn(cp.Transactions), left)
}

// nothingLeftLine says that the earlier runs finished the load.
func (res *resumeRun) nothingLeftLine() string {
	cp := res.found.Checkpoint
	if !cp.Done {
		return fmt.Sprintf("nothing left to do: the earlier runs produced the --count %s records (in %s, the last committed %s)",
			thousands(cp.Records), pluralTxn(cp.Transactions), cp.Written)
	}
	return fmt.Sprintf("nothing left to do: the earlier runs loaded all of the input (%s records in %s, the last committed %s)",
		thousands(cp.Records), pluralTxn(cp.Transactions), cp.Written)
}

// start is where the reader of input i begins.
func (res *resumeRun) start(i int) input.Start {
	return input.Start{After: res.after[i], Tap: res.tracker.Tap(i)}
}

// sendCheckpoint appends the checkpoint of the open transaction: what was
// read so far, done when the whole input was; final for a transaction of
// the checkpoint alone, which ends a load.
func (res *resumeRun) sendCheckpoint(ctx context.Context, done, final bool) error {
	cp := res.tracker.Checkpoint(done, time.Now())
	if final {
		cp = res.tracker.Final(time.Now())
	}
	// Its Opaque, the resumeRun itself, tells the run's promise it is no
	// input record; its failure fails its transaction.
	recs := []*sender.Record{{Topic: res.r.opts.ResumeTopic, Partition: res.partition,
		Key: []byte(res.r.opts.TransactionalID), Value: cp.Marshal(), Opaque: res}}
	var refused error
	_, err := res.r.prod.ProduceBatch(ctx, recs, func(_ *sender.Record, err error) {
		if errors.Is(err, sender.ErrNotSent) { // refused before ProduceBatch returns
			refused = err
		}
	})
	if err == nil {
		err = refused
	}
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}

// committed notes that the transaction of the last checkpoint sent was
// committed.
func (res *resumeRun) committed(done, final bool) {
	if !final {
		res.tracker.Committed()
	}
	res.lastDone = done
}

// thousands formats n with thousands separators: 1,200,000.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	var b []byte
	for i, c := range []byte(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, c)
	}
	if neg {
		return "-" + string(b)
	}
	return string(b)
}

// formatBytes formats a byte count for people: 300 MB, 1.2 GB (SI).
func formatBytes(n int64) string {
	const unit = 1000
	if n < unit {
		return fmt.Sprintf("%d bytes", n)
	}
	v, units := float64(n), []string{"kB", "MB", "GB", "TB", "PB"}
	i := -1
	for v >= unit && i < len(units)-1 {
		v /= unit
		i++
	}
	return fmt.Sprintf("%.1f %s", v, units[i])
}

func pluralTxn(n int64) string {
	if n == 1 {
		return "1 transaction"
	}
	return thousands(n) + " transactions"
}

// startResume runs prepareResume and, when the run must not go on, closes
// the producer and returns the exit status: 2 for an input that is not
// what the earlier runs committed or a checkpoint that could be too large,
// 0 for a finished load, 1 when the checkpoint could not be read.
func (r *producerRun) startResume(ctx context.Context, inputs []input.Input, sizes []int64) (code int, stop bool) {
	err := r.prepareResume(ctx, inputs, sizes)
	if err == nil {
		return 0, false
	}
	closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.opts.CloseTimeout)
	defer cancel()
	_ = r.prod.Close(closeCtx)
	switch {
	case errors.Is(err, errNothingLeft):
		r.rep.Errorf("%s\n", r.resume.nothingLeftLine())
		return cmdutil.ExitOK, true
	case errors.Is(err, checkpoint.ErrMismatch), errors.Is(err, errCheckpointTooLarge):
		r.rep.Errorf("error: --resume: %v; nothing was produced\n", err)
		return cmdutil.ExitUsage, true
	case ctx.Err() != nil:
		r.rep.Errorf("error: %v\n", err)
		return cmdutil.ExitInterrupted, true
	}
	r.rep.Errorf("error: %v\n", err)
	return cmdutil.ExitFailed, true
}

// inputSizes are the sizes left to read of the inputs, -1 when unknown.
func inputSizes(inputs []input.Input) []int64 {
	sizes := make([]int64, len(inputs))
	for i, in := range inputs {
		sizes[i] = in.Size()
	}
	return sizes
}
