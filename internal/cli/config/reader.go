package config

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/kproduce/kproduce/internal/escape"
)

// optionValues is where option values come from, already layered (flag >
// env > config file > default).
type optionValues interface {
	// Get returns the value of an option: a string, a bool, a number or a
	// list, depending on where it came from.
	Get(key string) any
	// IsSet reports whether the option was given by any source other than
	// its default.
	IsSet(key string) bool
	// flagChanged reports whether the option's own flag was given on the
	// command line.
	flagChanged(key string) bool
}

// optionReader reads typed option values and collects every error, so that
// one run reports all the problems of a command line at once.
type optionReader struct {
	vals optionValues
	errs []error
	bad  map[string]bool // the keys with an error
	// notes are what the reading decided that the user is told once on
	// stderr (as warnings).
	notes []string
}

// flagGiven reports whether the option's flag was given on the command
// line.
func (r *optionReader) flagGiven(key string) bool { return r.vals.flagChanged(key) }

// sourcedValues are option values that say where a value given other
// than by its own flag came from.
type sourcedValues interface {
	// source is where the option's value came from ("-X acks",
	// "env KPRODUCE_ACKS", "producer.properties:3 (acks)"), "" when it
	// came from its own flag or is the default.
	source(key string) string
}

// fail records an error about an option.
func (r *optionReader) fail(key string, err error) {
	r.errs = append(r.errs, fmt.Errorf("%s--%s: %w", r.sourcePrefix(key), key, err))
	r.markBad(key)
}

// failValue records an error about an option's value.
func (r *optionReader) failValue(key, raw string, err error) {
	r.errs = append(r.errs, fmt.Errorf("%s--%s %s: %w", r.sourcePrefix(key), key, escape.QuoteClipped(raw), err))
	r.markBad(key)
}

// sourcePrefix names where key's value came from when that was not its
// flag (a property, the environment, a config file line), so that an
// error about the value points at what the user wrote: "-X acks: ".
func (r *optionReader) sourcePrefix(key string) string {
	if sv, ok := r.vals.(sourcedValues); ok {
		if s := sv.source(key); s != "" {
			return s + ": "
		}
	}
	return ""
}

// markBad remembers that key has an error.
func (r *optionReader) markBad(key string) {
	if r.bad == nil {
		r.bad = make(map[string]bool)
	}
	r.bad[key] = true
}

// failed reports whether an error about key was recorded.
func (r *optionReader) failed(key string) bool { return r.bad[key] }

// err returns all the recorded errors joined, nil when there are none.
func (r *optionReader) err() error { return errors.Join(r.errs...) }

// str returns an option as one string.
func (r *optionReader) str(key string) string {
	s, err := toString(r.vals.Get(key))
	if err != nil {
		r.fail(key, err)
	}
	return s
}

// list returns an option as a list of strings.
func (r *optionReader) list(key string) []string {
	spec, _ := lookupSpec(key)
	l, err := toList(r.vals.Get(key), spec.Kind == kindList)
	if err != nil {
		r.fail(key, err)
	}
	return l
}

// boolean returns a true/false option.
func (r *optionReader) boolean(key string) bool {
	s := r.str(key)
	b, err := strconv.ParseBool(strings.TrimSpace(s))
	if err != nil {
		r.failValue(key, s, fmt.Errorf("%w: want true or false", ErrBadValue))
	}
	return b
}

// integer returns an integer option within [lo, hi].
func (r *optionReader) integer(key string, lo, hi int64) int64 {
	s := r.str(key)
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		r.failValue(key, s, fmt.Errorf("%w: not an integer", ErrBadValue))
		return 0
	}
	return r.inRange(key, s, n, lo, hi)
}

// size returns a byte-count option within [lo, hi].
func (r *optionReader) size(key string, lo, hi int64) int64 {
	s := r.str(key)
	n, err := parseBytes(s)
	if err != nil {
		r.failValue(key, s, err)
		return 0
	}
	return r.inRange(key, s, n, lo, hi)
}

// inRange checks lo <= n <= hi.
func (r *optionReader) inRange(key, raw string, n, lo, hi int64) int64 {
	switch {
	case n < lo:
		r.failValue(key, raw, fmt.Errorf("%w: must be at least %d", ErrBadValue, lo))
	case n > hi:
		r.failValue(key, raw, fmt.Errorf("%w: must be at most %d", ErrBadValue, hi))
	}
	return n
}

// duration returns a duration option; positive requires it to be above 0.
func (r *optionReader) duration(key string, positive bool) time.Duration {
	s := r.str(key)
	d, err := parseDuration(s)
	if err != nil {
		r.failValue(key, s, err)
		return 0
	}
	if positive && d == 0 {
		r.failValue(key, s, fmt.Errorf("%w: must be more than 0", ErrBadValue))
	}
	return d
}

// escaped returns an option with delimiter escapes decoded.
func (r *optionReader) escaped(key string) []byte {
	s := r.str(key)
	b, err := escape.Unescape(s)
	if err != nil {
		r.fail(key, err)
	}
	return b
}

// toString converts a single option value to a string.
func toString(v any) (string, error) {
	switch t := v.(type) {
	case nil:
		return "", nil
	case string:
		return t, nil
	case bool:
		return strconv.FormatBool(t), nil
	case int:
		return strconv.Itoa(t), nil
	case int64:
		return strconv.FormatInt(t, 10), nil
	case int32:
		return strconv.FormatInt(int64(t), 10), nil
	case uint64:
		return strconv.FormatUint(t, 10), nil
	case float64:
		if t == math.Trunc(t) && math.Abs(t) < 1<<53 {
			return strconv.FormatInt(int64(t), 10), nil
		}
		return strconv.FormatFloat(t, 'g', -1, 64), nil
	case time.Duration:
		return t.String(), nil
	case []string:
		if len(t) == 1 {
			return t[0], nil
		}
	case []any:
		if len(t) == 1 {
			return toString(t[0])
		}
	default:
		return "", fmt.Errorf("%w: unexpected %T", ErrBadValue, v)
	}
	return "", fmt.Errorf("%w: one value expected, not a list", ErrBadValue)
}

// toList converts an option value to a list. A single string is split at
// commas when commaSplit is set and is one element otherwise.
func toList(v any, commaSplit bool) ([]string, error) {
	switch t := v.(type) {
	case nil:
		return nil, nil
	case []string:
		return append([]string(nil), t...), nil
	case []any:
		out := make([]string, 0, len(t))
		for _, e := range t {
			s, err := toString(e)
			if err != nil {
				return nil, err
			}
			out = append(out, s)
		}
		return out, nil
	case string:
		if commaSplit {
			return splitList(t), nil
		}
		if t == "" {
			return nil, nil
		}
		return []string{t}, nil
	}
	s, err := toString(v)
	if err != nil {
		return nil, err
	}
	return []string{s}, nil
}

// splitList splits a comma-separated list, trimming spaces and dropping
// empty elements.
func splitList(s string) []string {
	var out []string
	for _, e := range strings.Split(s, ",") {
		if e = strings.TrimSpace(e); e != "" {
			out = append(out, e)
		}
	}
	return out
}
