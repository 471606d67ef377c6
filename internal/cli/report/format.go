package report

import (
	"errors"
	"fmt"
	"strings"
)

// ErrUnknownFormat is wrapped by the error of ParseFormat for a format it
// does not know.
var ErrUnknownFormat = errors.New("unknown report format")

// Format is how the reports of records are written: parsed once from -o
// by ParseFormat, then asked for every record's line. A format writes
// deliveries (and dry-run routes) on stdout; failures go to stderr in the
// text error format unless the format puts them on stdout too (json).
//
// Adding a format is one type implementing Format and one entry in
// namedFormats (or a case in ParseFormat for a pattern, as templates are).
type Format interface {
	// String is the format as -o gives it.
	String() string
	// appendRecord appends the stdout line of a record's outcome: of a
	// delivery, and of a failure when failuresOnStdout; nothing to
	// append means nothing to print.
	appendRecord(b []byte, r *Record) []byte
	// appendDry appends the stdout line of a dry-run record: one routed,
	// and one that failed when failuresOnStdout.
	appendDry(b []byte, r *Record) []byte
	// failuresOnStdout reports whether failures are written on stdout by
	// appendRecord and appendDry rather than on stderr as text errors.
	failuresOnStdout() bool
	// needsRecordBytes reports whether the format prints keys or values,
	// which reports must then carry.
	needsRecordBytes() bool
	// printsDeliveries reports whether a delivery's report prints
	// anything; when not, deliveries are only counted.
	printsDeliveries() bool
}

// namedFormats are the formats named by a word, in the order the help
// lists them.
func namedFormats() []Format { return []Format{textFormat{}, jsonFormat{}, noneFormat{}} }

// FormatNames are the words -o takes (a template is the other choice).
func FormatNames() []string {
	var names []string
	for _, f := range namedFormats() {
		names = append(names, f.String())
	}
	return names
}

// ParseFormat returns the format s names: text, json, none, or a template
// (any text with a %-directive).
func ParseFormat(s string) (Format, error) {
	for _, f := range namedFormats() {
		if s == f.String() {
			return f, nil
		}
	}
	if strings.Contains(s, "%") {
		return parseTemplateFormat(s)
	}
	return nil, fmt.Errorf("%w: want %s or a template with %%-directives", ErrUnknownFormat, strings.Join(FormatNames(), ", "))
}

// noneFormat prints no report: only failures, on stderr.
type noneFormat struct{}

func (noneFormat) String() string                          { return "none" }
func (noneFormat) appendRecord(b []byte, _ *Record) []byte { return b }
func (noneFormat) appendDry(b []byte, _ *Record) []byte    { return b }
func (noneFormat) failuresOnStdout() bool                  { return false }
func (noneFormat) needsRecordBytes() bool                  { return false }
func (noneFormat) printsDeliveries() bool                  { return false }
