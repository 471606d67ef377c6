package config

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/kproduce/kproduce/internal/cli/input"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// readInput reads how input is split into records. requireTopic says a
// topic is needed unless every record can name its own.
func (r *optionReader) readInput(o *Options, requireTopic bool) {
	r.readFormat(o)
	o.Input.Delimiter = r.escaped("delimiter")
	if len(o.Input.Delimiter) == 0 && !r.failed("delimiter") {
		r.fail("delimiter", fmt.Errorf("%w: must not be empty", ErrBadValue))
	}
	r.readLineSplits(o)
	if r.vals.IsSet("key") {
		o.Input.Key = []byte(r.str("key"))
	}
	for _, h := range r.list("header") {
		k, v, ok := splitHeader(h)
		if !ok {
			r.failValue("header", h, fmt.Errorf("%w: want KEY=VALUE or KEY:VALUE", ErrBadValue))
			continue
		}
		o.Input.Headers = append(o.Input.Headers, protocol.Header{Key: k, Value: []byte(v)})
	}
	if r.vals.IsSet("null") {
		o.Input.NullEnabled, o.Input.NullMarker = true, []byte(r.str("null"))
	}
	o.Input.EmptyAsNull = r.boolean("tombstone")
	o.Input.SkipEmpty = r.boolean("skip-empty")
	o.Input.MaxRecordBytes = r.size("max-record-bytes", 1, math.MaxInt64)
	o.Count = r.integer("count", 0, math.MaxInt64)
	if requireTopic && o.Topic == "" && !o.Input.CanNameTopics() && !r.failed("format") {
		if hint := missingTopicHint(o.Files); hint != "" {
			r.fail("topic", fmt.Errorf("%w: a topic is required: %s", ErrBadValue, hint))
			return
		}
		r.fail("topic", fmt.Errorf("%w: a topic is required (only json records and format strings with %%t can name their own)", ErrBadValue))
	}
}

// readFormat reads -f: a format name, or an rpk-style format string
// (anything with a % verb). kcat's -P with FILE arguments reads each FILE
// as one record, as kcat does (see kcatWholeFiles).
func (r *optionReader) readFormat(o *Options) {
	if r.kcatWholeFiles(o.Files) {
		o.Input.Format = input.FormatFile
		r.notes = append(r.notes, "-P with FILE arguments: each FILE is one record, as in kcat (-l reads them as lines)")
		return
	}
	f := r.str("format")
	if !strings.Contains(f, "%") {
		o.Input.Format = r.oneOf("format", input.Formats()...)
		return
	}
	layout, err := input.ParseLayout(f)
	if err != nil {
		r.failValue("format", f, err)
		return
	}
	o.Input.Format, o.Input.Layout = input.FormatLayout, layout
	if r.vals.IsSet("delimiter") {
		r.fail("delimiter", fmt.Errorf("%w: a format string says where records end (write the delimiter in it, e.g. '%%v\\n')", ErrBadValue))
	}
}

// kcatWholeFiles reports whether kcat's -P makes each FILE one record:
// kcat sends each FILE argument as one message unless -l says to read
// lines. So does kproduce when -P is given with a FILE other than stdin,
// unless -l, a format (-f, or from the environment or the config file),
// or an option that splits lines (-D, -K, --header-delimiter) says how to
// read them.
func (r *optionReader) kcatWholeFiles(files []string) bool {
	if !r.vals.flagChanged(flagKcatProduce) || r.vals.flagChanged(flagKcatLines) || !slices.ContainsFunc(files, func(f string) bool { return f != "-" }) {
		return false
	}
	for _, key := range []string{"format", "delimiter", "key-delimiter", "header-delimiter"} {
		if r.vals.IsSet(key) {
			return false
		}
	}
	return true
}

// readLineSplits reads what splits a line into headers, key and value:
// -K, --header-delimiter and their separators, for the lines format only.
func (r *optionReader) readLineSplits(o *Options) {
	in := &o.Input
	if r.vals.IsSet("key-delimiter") {
		in.KeyDelimiter = r.escaped("key-delimiter")
		if len(in.KeyDelimiter) == 0 {
			in.KeyDelimiter = nil // an empty -K means no split
		} else if in.Format != input.FormatLines {
			r.fail("key-delimiter", fmt.Errorf("%w: only the lines format splits keys", ErrBadValue))
		}
	}
	if r.vals.IsSet("header-delimiter") {
		in.HeaderDelimiter = r.escaped("header-delimiter")
		if len(in.HeaderDelimiter) == 0 {
			in.HeaderDelimiter = nil
		} else if in.Format != input.FormatLines {
			r.fail("header-delimiter", fmt.Errorf("%w: only the lines format has headers on each line", ErrBadValue))
		}
	}
	in.HeaderSeparator = r.escaped("header-separator")
	in.HeaderKeySeparator = r.escaped("header-key-separator")
	if in.HeaderDelimiter != nil {
		for _, key := range []string{"header-separator", "header-key-separator"} {
			if v := r.escaped(key); len(v) == 0 && !r.failed(key) {
				r.fail(key, fmt.Errorf("%w: must not be empty with --header-delimiter", ErrBadValue))
			}
		}
	}
	in.RequireDelimiters = r.boolean("require-delimiters")
}

// splitHeader splits a -H header at its first '=' or ':' (kcat writes
// KEY=VALUE, rpk KEY:VALUE).
func splitHeader(h string) (key, value string, ok bool) {
	i := strings.IndexAny(h, "=:")
	if i <= 0 {
		return "", "", false
	}
	return h[:i], h[i+1:], true
}
