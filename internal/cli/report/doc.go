// Package report prints kproduce's per-record reports: one line per
// record, delivered or failed, in the format -o names (text, json, none or
// a template), and in a dry run where each record would go.
//
// Invariants: the Reporter is the only writer of stdout during a run; it
// is safe for concurrent use, buffers its output, and never allocates for
// a successful report in the text, json or none formats. A failure report
// that cannot be written (stderr closed) is a write error like a stdout
// one, since a report is lost. The format is parsed once (ParseFormat);
// nothing else switches on its name.
package report
