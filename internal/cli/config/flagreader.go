package config

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
)

// FlagReader reads a subcommand's own options, which neither the
// environment nor a config file sets (a producer config's count or output
// must not leak into them), as typed values, collecting every error so
// that one run reports all the problems of a command line at once.
type FlagReader struct{ r optionReader }

// NewFlagReader returns a reader of the flags of fs.
func NewFlagReader(fs *pflag.FlagSet) *FlagReader {
	return &FlagReader{r: optionReader{vals: flagValues{fs}}}
}

// Duration reads a duration flag; positive requires it to be above 0.
func (f *FlagReader) Duration(name string, positive bool) time.Duration {
	return f.r.duration(name, positive)
}

// Integer reads an integer flag within [lo, hi].
func (f *FlagReader) Integer(name string, lo, hi int64) int64 { return f.r.integer(name, lo, hi) }

// Size reads a byte-count flag (100, 16KiB, 1MiB) within [lo, hi].
func (f *FlagReader) Size(name string, lo, hi int64) int64 { return f.r.size(name, lo, hi) }

// Float reads a decimal number flag.
func (f *FlagReader) Float(name string) float64 {
	s := f.r.str(name)
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		f.r.failValue(name, s, fmt.Errorf("%w: not a number", ErrBadValue))
		return 0
	}
	return v
}

// String reads a flag as given.
func (f *FlagReader) String(name string) string { return f.r.str(name) }

// Escaped reads a flag with delimiter escapes (\n \t \xNN) decoded.
func (f *FlagReader) Escaped(name string) []byte { return f.r.escaped(name) }

// Given reports whether the flag was given.
func (f *FlagReader) Given(name string) bool { return f.r.flagGiven(name) }

// Bool reads a true/false flag.
func (f *FlagReader) Bool(name string) bool { return f.r.boolean(name) }

// Output reads a subcommand's -o: text or json.
func (f *FlagReader) Output() string {
	o := strings.ToLower(strings.TrimSpace(f.r.str("output")))
	if o != "text" && o != "json" {
		f.r.failValue("output", o, fmt.Errorf("%w: want text or json", ErrBadValue))
	}
	return o
}

// FailValue records an error about a flag's value, raw as given.
func (f *FlagReader) FailValue(name, raw string, err error) { f.r.failValue(name, raw, err) }

// Fail records an error about a flag.
func (f *FlagReader) Fail(name string, err error) { f.r.fail(name, err) }

// Failed reports whether an error about the flag was recorded (its
// value, as read, is then a placeholder not to check further).
func (f *FlagReader) Failed(name string) bool { return f.r.failed(name) }

// Err returns every recorded error as one usage error, nil when there are
// none.
func (f *FlagReader) Err() error {
	if err := f.r.err(); err != nil {
		return cmdutil.AsUsageError(err)
	}
	return nil
}

// flagValues are option values read from a flag set only.
type flagValues struct{ fs *pflag.FlagSet }

// Get returns the flag's value as text.
func (f flagValues) Get(key string) any {
	if fl := f.fs.Lookup(key); fl != nil {
		return fl.Value.String()
	}
	return nil
}

// IsSet reports whether the flag was given.
func (f flagValues) IsSet(key string) bool {
	fl := f.fs.Lookup(key)
	return fl != nil && fl.Changed
}

// flagChanged reports whether the flag was given.
func (f flagValues) flagChanged(key string) bool { return f.IsSet(key) }
