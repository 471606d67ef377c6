package report

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kproduce/kproduce/pkg/sender"
)

// bufferSize is the size of the buffers in front of stdout and stderr.
const bufferSize = 64 << 10

// Reporter prints the reports of records in a Format. Successes go to
// stdout; failures go to stderr in the text error format, unless the
// format writes them on stdout (json). Output is buffered and written on
// Flush or when a buffer fills, so a slow terminal does not stall the
// producer for long. It is safe for concurrent use, and does not allocate
// for a successful report in the text, json or none formats.
type Reporter struct {
	format Format

	mu        sync.Mutex    // guards everything below
	out       *bufio.Writer // stdout
	errOut    *bufio.Writer // stderr
	line      []byte        // reused to format one report
	rep       Record        // reused: the report being printed
	delivered int64
	failed    int64
	// deliveredFrom, when set, counts the deliveries instead of delivered.
	deliveredFrom func() int64
	writeErr      error // the first error writing reports (see WriteErr)
	// hasWriteErr mirrors writeErr != nil so that WriteErr, which the input
	// loop calls per record, does not contend for mu.
	hasWriteErr atomic.Bool
	// errReports says a failure report was written to stderr: from then on
	// a stderr write error loses reports.
	errReports bool
	verbose    bool
	// fatal, when set, returns the error that stopped the producer (see
	// SetFatal).
	fatal func() error
}

// New returns a reporter printing in format to out (stdout) and errOut
// (stderr).
func New(format Format, out, errOut io.Writer) *Reporter {
	return &Reporter{
		format: format,
		out:    bufio.NewWriterSize(out, bufferSize),
		errOut: bufio.NewWriterSize(errOut, bufferSize),
		line:   make([]byte, 0, 256),
	}
}

// SetVerbose makes Summary print even when every record was delivered.
func (r *Reporter) SetVerbose(v bool) {
	r.mu.Lock()
	r.verbose = v
	r.mu.Unlock()
}

// SetFatal tells the reporter where to find the error that stops the
// producer for good (its FatalError), which the run prints once, at its
// end. When it is an authentication failure (or SASL credentials never
// obtained), a failure caused by it is printed on stderr with a reference
// to it rather than repeating it once per record read.
func (r *Reporter) SetFatal(fatal func() error) {
	r.mu.Lock()
	r.fatal = fatal
	r.mu.Unlock()
}

// NeedsRecordBytes reports whether reports must carry the key and value
// (the template prints %k or %v).
func (r *Reporter) NeedsRecordBytes() bool { return r.format.needsRecordBytes() }

// PrintsDeliveries reports whether a delivered record's report prints
// anything. When it does not (none), a caller may count deliveries with
// Delivered instead of reporting each.
func (r *Reporter) PrintsDeliveries() bool { return r.format.printsDeliveries() }

// CountDeliveriesWith makes Counts take the delivered records from
// delivered, for a format that does not print deliveries (see
// PrintsDeliveries) when they are not reported one by one but counted
// elsewhere (the producer's statistics).
func (r *Reporter) CountDeliveriesWith(delivered func() int64) {
	r.mu.Lock()
	r.deliveredFrom = delivered
	r.mu.Unlock()
}

// Report prints the outcome of one record: err nil for a delivery. The
// record's Opaque, when an *input.Origin, says where it was read.
func (r *Reporter) Report(rec *sender.Record, err error) { r.print(rec, err, false) }

// ReportSummarized reports a failure that one summary line accounts for
// (each record of a transaction aborted by an interrupt): it is counted,
// and printed only by a format that writes failures on stdout with the
// deliveries (json), never as one stderr line per record.
func (r *Reporter) ReportSummarized(rec *sender.Record, err error) {
	if r.format.failuresOnStdout() {
		r.print(rec, err, false)
		return
	}
	r.mu.Lock()
	r.failed++
	r.mu.Unlock()
}

// Promise returns Report as a promise for the producer (a func literal: a
// method value would add a call to each record's report).
func (r *Reporter) Promise() func(*sender.Record, error) {
	return func(rec *sender.Record, err error) { r.print(rec, err, false) }
}

// ReportDry prints one dry-run outcome: a routed record (err nil) on
// stdout (text, json or the template), a failure like a real run's
// (stderr, or stdout in json mode).
func (r *Reporter) ReportDry(rec *sender.Record, err error) { r.print(rec, err, true) }

// print prints one outcome, in a dry run's forms when dry.
func (r *Reporter) print(rec *sender.Record, err error, dry bool) {
	r.mu.Lock()
	rep := &r.rep // no defers: this runs once a record
	*rep = newRecord(rec, err)
	if rep.Err == nil {
		r.delivered++
	} else {
		r.failed++
	}
	switch {
	case rep.Err != nil && !r.format.failuresOnStdout():
		if r.fatal != nil && !dry {
			rep.Err = referToFatal(rep.Err, r.fatal())
		}
		r.line = appendTextError(r.line[:0], rep)
		r.writeErrOut(r.line)
	default:
		if dry {
			r.line = r.format.appendDry(r.line[:0], rep)
		} else {
			r.line = r.format.appendRecord(r.line[:0], rep)
		}
		if len(r.line) > 0 {
			r.writeOut(r.line)
		}
	}
	*rep = Record{}
	r.mu.Unlock()
}

// Errorf writes a line on stderr at once.
func (r *Reporter) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, _ = fmt.Fprintf(r.errOut, format, args...)
	_ = r.errOut.Flush()
}

// writeOut writes to stdout, remembering the first error. r.mu must be
// held.
func (r *Reporter) writeOut(b []byte) {
	if r.writeErr != nil {
		return
	}
	if _, err := r.out.Write(b); err != nil {
		r.setWriteErr(fmt.Errorf("write reports: %w", err))
	}
}

// writeErrOut writes a failure report to stderr. An error (stderr is a
// closed pipe, as in `kproduce ... 2>&1 | head -1`) is remembered like a
// stdout error, since the report is lost: the run then stops reading.
// r.mu must be held.
func (r *Reporter) writeErrOut(b []byte) {
	r.errReports = true
	if _, err := r.errOut.Write(b); err != nil {
		r.failErrOut(err)
	}
}

// setWriteErr records the first error writing reports. r.mu must be held.
func (r *Reporter) setWriteErr(err error) {
	r.writeErr = err
	r.hasWriteErr.Store(true)
}

// failErrOut records a stderr write error that lost failure reports.
// r.mu must be held.
func (r *Reporter) failErrOut(err error) {
	if r.writeErr == nil && r.errReports {
		r.setWriteErr(fmt.Errorf("write failure reports: %w", err))
	}
}

// Flush writes what is buffered to stdout and stderr. It returns the first
// error writing reports (see WriteErr).
func (r *Reporter) Flush() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.writeErr == nil {
		if err := r.out.Flush(); err != nil {
			r.setWriteErr(fmt.Errorf("write reports: %w", err))
		}
	}
	if err := r.errOut.Flush(); err != nil {
		r.failErrOut(err)
	}
	return r.writeErr
}

// StartFlusher flushes the reports at least every interval, so that a
// shell sees a streamed record's report promptly even when nothing else
// triggers a flush. It returns a function that stops it.
func (r *Reporter) StartFlusher(interval time.Duration) (stop func()) {
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				_ = r.Flush()
			case <-done:
				return
			}
		}
	}()
	return func() { close(done); <-stopped }
}

// Counts returns how many records were delivered and failed.
func (r *Reporter) Counts() (delivered, failed int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.deliveredLocked(), r.failed
}

// deliveredLocked is the count of delivered records. r.mu must be held.
func (r *Reporter) deliveredLocked() int64 {
	if r.deliveredFrom != nil {
		return r.deliveredFrom()
	}
	return r.delivered
}

// WriteErr returns the first error writing reports (e.g. EPIPE when the
// reader of a pipe went away): to stdout, or failure reports to stderr;
// nil when there was none.
func (r *Reporter) WriteErr() error {
	if !r.hasWriteErr.Load() {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.writeErr
}

// Summary prints "N delivered, M failed" on stderr when a record failed or
// the reporter is verbose, and flushes stderr.
func (r *Reporter) Summary() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.failed == 0 && !r.verbose {
		return
	}
	r.line = strconv.AppendInt(r.line[:0], r.deliveredLocked(), 10)
	r.line = append(r.line, " delivered, "...)
	r.line = strconv.AppendInt(r.line, r.failed, 10)
	r.line = append(r.line, " failed\n"...)
	_, _ = r.errOut.Write(r.line)
	_ = r.errOut.Flush()
}

// DryRunSummary prints "dry run: N routed, M failed, nothing sent" on
// stderr, whatever the outcome, and flushes stderr.
func (r *Reporter) DryRunSummary() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.line = append(r.line[:0], "dry run: "...)
	r.line = strconv.AppendInt(r.line, r.delivered, 10)
	r.line = append(r.line, " routed, "...)
	r.line = strconv.AppendInt(r.line, r.failed, 10)
	r.line = append(r.line, " failed, nothing sent\n"...)
	_, _ = r.errOut.Write(r.line)
	_ = r.errOut.Flush()
}
