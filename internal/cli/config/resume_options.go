package config

import (
	"maps"
	"strconv"
	"strings"
)

// ResumeOptions are the options a resumed load (--resume) must share with
// the runs it takes up, each as text: those that decide how the input's
// bytes become numbered records (format, delimiter, skip-empty) and those
// that decide where a record goes and what its key, value and headers are
// (topic, partition, partitioner, the key options, the headers and their
// delimiters, the null markers). A change of one of them would leave the
// load half one way, half the other. Compression, batching, pacing and
// the delivery options may change: they decide how records travel, not
// what they are. The checkpoint of every transaction records them.
func (o *Options) ResumeOptions() map[string]string {
	in := &o.Input
	format := in.Format
	if in.Layout != nil {
		format = in.Layout.String() // the format string says where records end
	}
	headers := make([]string, len(in.Headers))
	for i, h := range in.Headers {
		headers[i] = strconv.Quote(h.Key + "=" + string(h.Value))
	}
	null := noValue
	if in.NullEnabled {
		null = string(in.NullMarker)
	}
	m := map[string]string{
		"format":               format,
		"delimiter":            string(in.Delimiter),
		"skip-empty":           strconv.FormatBool(in.SkipEmpty),
		"topic":                o.Topic,
		"partition":            strconv.Itoa(int(o.Partition)),
		"partitioner":          o.Partitioner,
		"key":                  optionalBytes(in.Key),
		"key-delimiter":        optionalBytes(in.KeyDelimiter),
		"header":               strings.Join(headers, " "),
		"header-delimiter":     optionalBytes(in.HeaderDelimiter),
		"header-separator":     string(in.HeaderSeparator),
		"header-key-separator": string(in.HeaderKeySeparator),
		"require-delimiters":   strconv.FormatBool(in.RequireDelimiters),
		"null":                 null,
		"tombstone":            strconv.FormatBool(in.EmptyAsNull),
	}
	maps.Copy(m, o.Schemas.ResumeOptions()) // how JSON values and keys are encoded
	return m
}

// noValue stands for an option not given (no key, no null marker), apart
// from one given empty.
const noValue = "(none)"

// optionalBytes is b as text, noValue when nil.
func optionalBytes(b []byte) string {
	if b == nil {
		return noValue
	}
	return string(b)
}
