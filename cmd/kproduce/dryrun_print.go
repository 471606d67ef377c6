package main

import (
	"strconv"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// dryReport is where one record of a dry run would go, or why it could
// not. Offset is always -1; Timestamp is the one the record would carry.
type dryReport struct {
	report
	Headers []protocol.Header
}

// reportDry prints one dry-run outcome: a routed record on stdout (text,
// json or the template), a failure like a real run's (stderr, or stdout in
// json mode).
func (r *reporter) reportDry(rep *dryReport) { r.print(&rep.report, rep) }

// dryRunSummary prints "dry run: N routed, M failed, nothing sent" on
// stderr, whatever the outcome, and flushes stderr.
func (r *reporter) dryRunSummary() {
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

// appendDryText appends
// "dry-run: SOURCE:N TOPIC/PARTITION key=KEY value_bytes=N headers=N\n":
// the key Go-quoted (escapes for control bytes and invalid UTF-8) or null,
// the value's size, or value=null for a null value (a tombstone).
func appendDryText(b []byte, rep *dryReport) []byte {
	b = append(b, "dry-run: "...)
	b = append(b, rep.Source...)
	b = append(b, ':')
	b = strconv.AppendInt(b, rep.Number, 10)
	b = append(b, ' ')
	b = append(b, rep.Topic...)
	b = append(b, '/')
	b = strconv.AppendInt(b, int64(rep.Partition), 10)
	b = append(b, " key="...)
	if rep.Key == nil {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendQuote(b, string(rep.Key))
	}
	if rep.Value == nil {
		b = append(b, " value=null"...)
	} else {
		b = append(b, " value_bytes="...)
		b = strconv.AppendInt(b, int64(len(rep.Value)), 10)
	}
	b = append(b, " headers="...)
	b = strconv.AppendInt(b, int64(len(rep.Headers)), 10)
	return append(b, '\n')
}

// appendDryJSON appends one JSON object and a newline:
// {"source":..,"record":..,"topic":..,"partition":..,"key":..,"value_size":..,
// "headers":[{"key":..,"value":..}],"timestamp":..[,"error":..]}. Keys and
// values are JSON strings of their raw bytes (as appendJSONString writes
// them) or null; value_size is null for a null value.
func appendDryJSON(b []byte, rep *dryReport) []byte {
	b = appendJSONRecordStart(b, rep.Source, rep.Number, rep.Topic, rep.Partition)
	b = append(b, `,"key":`...)
	b = appendJSONBytes(b, rep.Key)
	b = append(b, `,"value_size":`...)
	if rep.Value == nil {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendInt(b, int64(len(rep.Value)), 10)
	}
	b = append(b, `,"headers":[`...)
	for i, h := range rep.Headers {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"key":`...)
		b = appendJSONString(b, h.Key)
		b = append(b, `,"value":`...)
		b = appendJSONBytes(b, h.Value)
		b = append(b, '}')
	}
	b = append(b, `],"timestamp":`...)
	b = strconv.AppendInt(b, rep.Timestamp, 10)
	if rep.Err != nil {
		b = append(b, `,"error":`...)
		b = appendJSONString(b, rep.Err.Error())
	}
	return append(b, "}\n"...)
}

// appendJSONBytes appends v as a JSON string, or null when v is nil.
func appendJSONBytes(b, v []byte) []byte {
	if v == nil {
		return append(b, "null"...)
	}
	return appendJSONString(b, string(v))
}
