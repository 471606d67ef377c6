package producecmd

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/kproduce/kproduce/internal/cli/input"
	"github.com/kproduce/kproduce/pkg/sender"
)

// txnRun runs the input as transactions (--transactional-id): one for the
// whole input, or one per --transaction-records records. Reports are held
// until their transaction's outcome is known: a committed transaction's
// records are reported delivered with their offsets, an aborted one's as
// failed. After an abort the run stops reading.
type txnRun struct {
	r         *producerRun
	limit     int64 // records per transaction, 0: the whole input
	keepBytes bool  // the reports print keys or values: hold copies

	// ctl serializes the reader's records with the beginning and end of
	// transactions, which the reader or, after an interrupt, the main
	// goroutine performs. It guards the fields below.
	ctl              sync.Mutex
	open             bool   // a transaction is open
	count            int64  // records of the open transaction
	stopped          bool   // a transaction was aborted, or the run ended: no more records
	aborted          bool   // a transaction was aborted
	committedTxns    int64  // transactions committed
	committedRecords int64  // records of the committed transactions
	finalReason      string // the abort reason of reports released after Close ("" after a commit)
	releaseAtClose   bool   // reports are released once the producer has closed
	lastCommitted    string // the input position of the last record committed ("" before a commit)

	mu      sync.Mutex   // guards held and failure: the producer's callback writes them
	held    *heldReports // the open transaction's reports
	failure string       // the first failure of the open transaction, with its position
}

func newTxnRun(r *producerRun, keepBytes bool) *txnRun {
	return &txnRun{r: r, limit: r.opts.TransactionRecords, keepBytes: keepBytes, held: new(heldReports)}
}

// hold keeps a record's report until its transaction ends.
func (t *txnRun) hold(rec *sender.Record, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.held.put(rec, err, t.keepBytes)
	// A record the run's interrupt kept from the producer does not fail
	// its transaction on its own: the interrupt ends it (finish).
	if err != nil && t.failure == "" && !errors.Is(err, sender.ErrTransactionAborted) && !errors.Is(err, errInterrupted) {
		source, number := "", int64(0)
		if o, ok := rec.Opaque.(*input.Origin); ok && o != nil {
			source, number = o.Source, o.Number
		}
		t.failure = fmt.Sprintf("%s:%d: %v", source, number, err)
	}
}

// note reserves the place of a record read in the open transaction's
// reports (input order).
func (t *txnRun) note(source int32, number int64) {
	t.mu.Lock()
	t.held.note(source, number)
	t.mu.Unlock()
}

// cloneBytes copies b, keeping nil and empty apart.
func cloneBytes(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte{}, b...)
}

// firstFailure is the first failure of the open transaction, "" when none.
func (t *txnRun) firstFailure() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.failure
}

// record produces the records of one read (one record, or none when it
// failed to be read) inside a transaction, opening one when needed and
// committing it after --transaction-records records. It returns false when
// reading must stop.
func (t *txnRun) record(ctx context.Context, send []*sender.Record, origins *input.Origins) bool {
	t.ctl.Lock()
	defer t.ctl.Unlock()
	if t.stopped {
		return false
	}
	if !t.open {
		if err := t.r.prod.BeginTransaction(); err != nil {
			for _, rec := range send {
				rec.Offset = -1
				t.r.rep.Report(rec, sendError(ctx, err))
			}
			t.stopped = true
			return false
		}
		t.open, t.count = true, 0
	}
	for _, rec := range send {
		if o, ok := rec.Opaque.(*input.Origin); ok {
			t.note(int32(o.Input), o.Number)
		}
	}
	t.r.produce(ctx, send, origins)
	t.count += int64(len(send))
	if reason := t.firstFailure(); reason != "" {
		t.end(ctx, reason, false)
		return false
	}
	if t.limit > 0 && t.count >= t.limit {
		return t.end(ctx, "", false)
	}
	return true
}

// finish ends the open transaction once reading is over: it commits
// unless the run was interrupted, the producer stopped, an input could not
// be read or a record failed. A resumed load read to its end whose last
// transaction ended before the end was known gets one more transaction,
// holding only the checkpoint that says it is done.
func (t *txnRun) finish(ctx context.Context) {
	t.ctl.Lock()
	defer t.ctl.Unlock()
	reason := t.firstFailure()
	switch {
	case ctx.Err() != nil:
		reason = reasonInterrupted
	case t.r.prod.FatalError() != nil:
		reason = t.r.prod.FatalError().Error()
	case t.r.readErr.Load():
		reason = "the input could not be read to its end"
	}
	if !t.stopped && !t.open && reason == "" && t.r.inputEnded.Load() && t.r.resume != nil && !t.r.resume.lastDone {
		if err := t.r.prod.BeginTransaction(); err != nil {
			t.r.rep.Errorf("error: the closing checkpoint: %v\n", err)
			t.aborted = true
		} else {
			t.open, t.count = true, 0
		}
	}
	if t.stopped || !t.open {
		t.stopped = true
		return
	}
	t.end(ctx, reason, t.r.inputEnded.Load())
	t.stopped = true
}

// end commits the open transaction when reason is "" and aborts it
// otherwise (or when the commit fails), then reports its records. With
// --resume the commit carries the checkpoint of what was read so far,
// done when the whole input was. It returns whether the run goes on.
// t.ctl must be held.
func (t *txnRun) end(ctx context.Context, reason string, done bool) bool {
	ectx, cancel := endContext(ctx, t.r.opts.CloseTimeout, t.r.opts.DeliveryTimeout+t.r.opts.RequestTimeout)
	defer cancel()
	t.open = false
	final := t.count == 0 // the closing checkpoint of a resumed load
	if reason == "" && t.r.resume != nil {
		if err := t.r.resume.sendCheckpoint(ectx, done, final); err != nil {
			reason = err.Error()
		}
	}
	if reason == "" {
		err := t.r.prod.CommitTransaction(ectx)
		if err == nil {
			if t.r.resume != nil {
				t.r.resume.committed(done, final)
			}
			if !final {
				t.committedTxns++
			}
			t.committedRecords += int64(t.release(""))
			return true
		}
		if reason = t.firstFailure(); reason == "" {
			reason = err.Error()
		}
	}
	t.aborted, t.stopped = true, true
	err := t.r.prod.AbortTransaction(ectx)
	if errors.Is(err, sender.ErrTransactionOutcomeUnknown) {
		// The commit reached the coordinator unanswered: it may stand.
		n := t.releaseAs(fmt.Errorf("%w: %s: the records may or may not have been committed", sender.ErrTransactionOutcomeUnknown, reason), false)
		t.r.rep.Errorf("transaction outcome unknown: %s: %d records may or may not have been committed\n", reason, n)
		return false
	}
	if err != nil && t.r.prod.FatalError() == nil {
		reason = fmt.Sprintf("%s (abort: %v)", reason, err)
	}
	if t.r.prod.FatalError() != nil {
		// Records may still be completing: report them once the producer
		// has closed.
		t.finalReason, t.releaseAtClose = reason, true
		return false
	}
	if reason == reasonInterrupted {
		n := t.releaseAs(errors.New("transaction aborted: "+reason), true)
		t.r.rep.Errorf("transaction aborted: %s: %d records not committed; %s\n", reason, n, t.resumeHint())
		return false
	}
	n := t.release(reason)
	t.r.rep.Errorf("transaction aborted: %s: %d records not committed\n", reason, n)
	return false
}

// endContext bounds the end of a transaction: by limit, and by grace after
// ctx ends (an interrupt leaves the commit or abort --close-timeout).
func endContext(ctx context.Context, grace, limit time.Duration) (context.Context, context.CancelFunc) {
	ectx, cancel := context.WithTimeout(context.WithoutCancel(ctx), limit)
	stop := context.AfterFunc(ctx, func() {
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case <-t.C:
			cancel()
		case <-ectx.Done():
		}
	})
	return ectx, func() { stop(); cancel() }
}

// release reports the held records in input order, as delivered after a
// commit (reason "") or as failed with reason after an abort, and returns
// how many.
func (t *txnRun) release(reason string) int {
	if reason == "" {
		return t.releaseAs(nil, false)
	}
	return t.releaseAs(fmt.Errorf("transaction aborted: %s", reason), false)
}

// releaseAs reports the held records in input order: as delivered when
// verdict is nil, else as failed with verdict (a record that failed on its
// own keeps its error after the verdict's words). summarized leaves the
// records that failed by the verdict alone to the caller's summary line
// (Reporter.ReportSummarized). It returns how many.
func (t *txnRun) releaseAs(verdict error, summarized bool) int {
	t.mu.Lock()
	held := t.held
	t.held, t.failure = new(heldReports), ""
	t.mu.Unlock()
	_, fenced := t.fencedReason()
	var last input.Origin // a copy: each reuses its record's Origin
	n := held.each(t.r.sources, func(rec *sender.Record, err error) {
		switch {
		case verdict == nil:
			if o, ok := rec.Opaque.(*input.Origin); ok && o != nil {
				last = *o
			}
		case err == nil || errors.Is(err, sender.ErrTransactionAborted) || errors.Is(err, errInterrupted),
			fencingConsequence(err) && fenced:
			err, rec.Offset = verdict, -1
			if summarized {
				t.r.rep.ReportSummarized(rec, err)
				return
			}
		default:
			err, rec.Offset = fmt.Errorf("%s: %w", verdictWords(verdict), err), -1
		}
		t.r.rep.Report(rec, err)
	})
	if last.Chunk != nil {
		t.lastCommitted = fmt.Sprintf("%s:%d", last.Source, last.Number)
	}
	return n
}

// verdictWords is how a record that failed on its own is introduced.
func verdictWords(verdict error) string {
	if errors.Is(verdict, sender.ErrTransactionOutcomeUnknown) {
		return sender.ErrTransactionOutcomeUnknown.Error()
	}
	return "transaction aborted"
}

// closed reports what is left once the producer has closed, and prints
// the outcome of the committed transactions.
func (t *txnRun) closed() {
	t.ctl.Lock()
	defer t.ctl.Unlock()
	if t.releaseAtClose {
		reason := t.finalReason
		if fenced, ok := t.fencedReason(); ok {
			reason = fenced
		}
		n := t.release(reason)
		t.r.rep.Errorf("transaction aborted: %s: %d records not committed\n", reason, n)
	} else if n := t.release("records completed after the transaction ended"); n > 0 {
		t.aborted = true
	}
	_ = t.r.rep.Flush() // the reports before the outcome line
	switch {
	case t.committedTxns == 1 && t.limit == 0:
		t.r.rep.Errorf("transaction committed: %d records\n", t.committedRecords)
	case t.committedTxns > 0:
		t.r.rep.Errorf("%d transactions committed: %d records\n", t.committedTxns, t.committedRecords)
	}
}

// failed reports whether a transaction was aborted.
func (t *txnRun) failed() bool {
	t.ctl.Lock()
	defer t.ctl.Unlock()
	return t.aborted
}
