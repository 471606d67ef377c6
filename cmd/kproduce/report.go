package main

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// reportBufferSize is the size of the buffers in front of stdout and stderr.
const reportBufferSize = 64 << 10

// report is the outcome of one record, success or failure.
type report struct {
	Source    string // file name or "-"
	Number    int64  // 1-based record number in its source
	Topic     string
	Partition int32 // -1 when unknown
	Offset    int64 // -1 when unknown
	Timestamp int64 // ms, as the broker stored it
	Key       []byte
	Value     []byte // only needed when the template prints them
	Err       error  // nil: delivered
}

// The report formats.
const (
	outputText = "text"
	outputJSON = "json"
	outputNone = "none"
)

// reporter prints delivery reports. Successes go to stdout (text, json or a
// template); failures go to stderr in the text error format, except in json
// mode where every outcome goes to stdout. Output is buffered and written
// on Flush or when a buffer fills, so a slow terminal does not stall the
// producer for long. It is safe for concurrent use.
type reporter struct {
	format string
	tmpl   []tmplPart

	mu        sync.Mutex    // guards everything below
	out       *bufio.Writer // stdout
	errOut    *bufio.Writer // stderr
	line      []byte        // reused to format one report
	delivered int64
	failed    int64
	writeErr  error // the first error writing reports (see WriteErr)
	// hasWriteErr mirrors writeErr != nil so that WriteErr, which the input
	// loop calls per record, does not contend for mu.
	hasWriteErr atomic.Bool
	// errReports says a failure report was written to stderr: from then on
	// a stderr write error loses reports.
	errReports bool
	verbose    bool
}

// newReporter returns a reporter for format: text, json, none or a template
// (anything containing %).
func newReporter(format string, out, errOut io.Writer) (*reporter, error) {
	r := &reporter{
		format: format,
		out:    bufio.NewWriterSize(out, reportBufferSize),
		errOut: bufio.NewWriterSize(errOut, reportBufferSize),
		line:   make([]byte, 0, 256),
	}
	switch format {
	case outputText, outputJSON, outputNone:
	default:
		tmpl, err := parseTemplate(format)
		if err != nil {
			return nil, err
		}
		r.tmpl = tmpl
	}
	return r, nil
}

// SetVerbose makes Summary print even when every record was delivered.
func (r *reporter) SetVerbose(v bool) {
	r.mu.Lock()
	r.verbose = v
	r.mu.Unlock()
}

// NeedsRecordBytes reports whether reports must carry the key and value
// (the template prints %k or %v).
func (r *reporter) NeedsRecordBytes() bool { return templateUsesRecordBytes(r.tmpl) }

// Report prints the outcome of one record.
func (r *reporter) Report(rep *report) { r.print(rep, nil) }

// print prints one outcome: a success on stdout in the output format, a
// failure on stderr in the text error format (on stdout in json mode).
// dry, when not nil, is the dry run's record whose forms replace the
// delivery report's.
func (r *reporter) print(rep *report, dry *dryReport) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if rep.Err == nil {
		r.delivered++
	} else {
		r.failed++
	}
	switch {
	case r.format == outputJSON && dry != nil:
		r.line = appendDryJSON(r.line[:0], dry)
		r.writeOut(r.line)
	case r.format == outputJSON:
		r.line = appendJSONReport(r.line[:0], rep)
		r.writeOut(r.line)
	case rep.Err != nil:
		r.line = appendTextError(r.line[:0], rep)
		r.writeErrOut(r.line)
	case r.format == outputText && dry != nil:
		r.line = appendDryText(r.line[:0], dry)
		r.writeOut(r.line)
	case r.format == outputText:
		r.line = appendTextReport(r.line[:0], rep)
		r.writeOut(r.line)
	case r.format == outputNone:
	default:
		r.line = appendTemplate(r.line[:0], r.tmpl, rep)
		r.writeOut(r.line)
	}
}

// writeOut writes to stdout, remembering the first error.
func (r *reporter) writeOut(b []byte) {
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
func (r *reporter) writeErrOut(b []byte) {
	r.errReports = true
	if _, err := r.errOut.Write(b); err != nil {
		r.failErrOut(err)
	}
}

// setWriteErr records the first error writing reports. r.mu must be held.
func (r *reporter) setWriteErr(err error) {
	r.writeErr = err
	r.hasWriteErr.Store(true)
}

// failErrOut records a stderr write error that lost failure reports.
// r.mu must be held.
func (r *reporter) failErrOut(err error) {
	if r.writeErr == nil && r.errReports {
		r.setWriteErr(fmt.Errorf("write failure reports: %w", err))
	}
}

// Flush writes what is buffered to stdout and stderr. It returns the first
// error writing reports (see WriteErr).
func (r *reporter) Flush() error {
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

// Counts returns how many records were delivered and failed.
func (r *reporter) Counts() (delivered, failed int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.delivered, r.failed
}

// WriteErr returns the first error writing reports (e.g. EPIPE when the
// reader of a pipe went away): to stdout, or failure reports to stderr;
// nil when there was none.
func (r *reporter) WriteErr() error {
	if !r.hasWriteErr.Load() {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.writeErr
}

// Summary prints "N delivered, M failed" on stderr when a record failed or
// the reporter is verbose, and flushes stderr.
func (r *reporter) Summary() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.failed == 0 && !r.verbose {
		return
	}
	r.line = strconv.AppendInt(r.line[:0], r.delivered, 10)
	r.line = append(r.line, " delivered, "...)
	r.line = strconv.AppendInt(r.line, r.failed, 10)
	r.line = append(r.line, " failed\n"...)
	_, _ = r.errOut.Write(r.line)
	_ = r.errOut.Flush()
}

// appendTextReport appends "TOPIC/PARTITION@OFFSET\n".
func appendTextReport(b []byte, rep *report) []byte {
	b = append(b, rep.Topic...)
	b = append(b, '/')
	b = strconv.AppendInt(b, int64(rep.Partition), 10)
	b = append(b, '@')
	b = strconv.AppendInt(b, rep.Offset, 10)
	return append(b, '\n')
}

// appendTextError appends "error: SOURCE:N: TOPIC/PARTITION: REASON\n".
func appendTextError(b []byte, rep *report) []byte {
	b = append(b, "error: "...)
	b = append(b, rep.Source...)
	b = append(b, ':')
	b = strconv.AppendInt(b, rep.Number, 10)
	b = append(b, ": "...)
	b = append(b, rep.Topic...)
	b = append(b, '/')
	b = strconv.AppendInt(b, int64(rep.Partition), 10)
	b = append(b, ": "...)
	b = append(b, rep.Err.Error()...)
	return append(b, '\n')
}

// appendJSONRecordStart opens the JSON object of a record's report:
// {"source":..,"record":..,"topic":..,"partition":..
func appendJSONRecordStart(b []byte, source string, number int64, topic string, partition int32) []byte {
	b = append(b, `{"source":`...)
	b = appendJSONString(b, source)
	b = append(b, `,"record":`...)
	b = strconv.AppendInt(b, number, 10)
	b = append(b, `,"topic":`...)
	b = appendJSONString(b, topic)
	b = append(b, `,"partition":`...)
	return strconv.AppendInt(b, int64(partition), 10)
}

// appendJSONReport appends one JSON object and a newline:
// {"source":..,"record":..,"topic":..,"partition":..,"offset":..,"timestamp":..[,"error":..]}.
func appendJSONReport(b []byte, rep *report) []byte {
	b = appendJSONRecordStart(b, rep.Source, rep.Number, rep.Topic, rep.Partition)
	b = append(b, `,"offset":`...)
	b = strconv.AppendInt(b, rep.Offset, 10)
	b = append(b, `,"timestamp":`...)
	b = strconv.AppendInt(b, rep.Timestamp, 10)
	if rep.Err != nil {
		b = append(b, `,"error":`...)
		b = appendJSONString(b, rep.Err.Error())
	}
	return append(b, "}\n"...)
}

// appendJSONString appends s as a JSON string. Control characters are
// escaped and invalid UTF-8 becomes U+FFFD, so the output is always valid
// JSON.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 {
				b = append(b, `\ufffd`...)
			} else {
				b = append(b, s[i:i+n]...)
			}
			i += n
			continue
		}
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c == '\t':
			b = append(b, '\\', 't')
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			b = append(b, c)
		}
		i++
	}
	return append(b, '"')
}
