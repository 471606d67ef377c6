package javaprops

import (
	"fmt"
	"strings"
)

// The line reader properties of kafka-console-producer and their
// defaults (LineMessageReader's).
const (
	propParseKey        = "parse.key"
	propKeySeparator    = "key.separator"
	propParseHeaders    = "parse.headers"
	propHeadersDelim    = "headers.delimiter"
	propHeadersSep      = "headers.separator"
	propHeadersKeySep   = "headers.key.separator"
	propNullMarker      = "null.marker"
	propIgnoreError     = "ignore.error"
	defaultKeySeparator = "\t"
	defaultHeadersDelim = "\t"
	defaultHeadersSep   = ","
	defaultHeadersKey   = ":"
)

// readerSettings are the line reader properties, read as
// LineMessageReader.configure reads them.
type readerSettings struct {
	parseKey, parseHeaders, ignoreError bool
	keySep, headersDelim, headersSep    string
	headersKeySep                       string
	nullMarker                          *string
}

// ResolveReader reads kafka-console-producer's line reader properties
// (parse.key, key.separator, parse.headers, headers.delimiter,
// headers.separator, headers.key.separator, null.marker, ignore.error)
// with LineMessageReader's defaults and checks, and returns the kproduce
// options they set: a line is "headers<delimiter>key<separator>value",
// and, unless ignore.error=true, a line without a separator fails. Values
// are taken as given (no escapes), as the console producer does.
func ResolveReader(props map[string]string) ([]Derived, error) {
	s, err := readReaderSettings(props)
	if err != nil {
		return nil, err
	}
	if err := s.check(); err != nil {
		return nil, err
	}
	var out []Derived
	add := func(key, value string, from ...string) {
		out = append(out, Derived{Key: key, Value: value, Props: from})
	}
	if s.parseKey {
		add("key-delimiter", quoteEscapes(s.keySep), propParseKey, propKeySeparator)
	}
	if s.parseHeaders {
		add("header-delimiter", quoteEscapes(s.headersDelim), propParseHeaders, propHeadersDelim)
		add("header-separator", quoteEscapes(s.headersSep), propParseHeaders, propHeadersSep)
		add("header-key-separator", quoteEscapes(s.headersKeySep), propParseHeaders, propHeadersKeySep)
	}
	if s.parseKey || s.parseHeaders {
		add("require-delimiters", fmt.Sprint(!s.ignoreError), propParseKey, propParseHeaders, propIgnoreError)
	}
	if s.nullMarker != nil {
		add("null", *s.nullMarker, propNullMarker)
	}
	return out, nil
}

// readReaderSettings reads the properties over the defaults.
func readReaderSettings(props map[string]string) (*readerSettings, error) {
	s := &readerSettings{keySep: defaultKeySeparator, headersDelim: defaultHeadersDelim,
		headersSep: defaultHeadersSep, headersKeySep: defaultHeadersKey}
	var err error
	for name, b := range map[string]*bool{propParseKey: &s.parseKey, propParseHeaders: &s.parseHeaders, propIgnoreError: &s.ignoreError} {
		if v, ok := props[name]; ok {
			if *b, err = readerBool(name, v); err != nil {
				return nil, err
			}
		}
	}
	for name, p := range map[string]*string{propKeySeparator: &s.keySep, propHeadersDelim: &s.headersDelim,
		propHeadersSep: &s.headersSep, propHeadersKeySep: &s.headersKeySep} {
		if v, ok := props[name]; ok {
			if v == "" {
				return nil, fmt.Errorf("%s: %w: must not be empty", name, ErrBadValue)
			}
			*p = v
		}
	}
	if v, ok := props[propNullMarker]; ok {
		s.nullMarker = &v
	}
	return s, nil
}

// readerBool reads true or false (LineMessageReader reads anything but
// true as false; kproduce refuses a typo instead).
func readerBool(name, v string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fmt.Errorf("%s=%q: %w: want true or false", name, v, ErrBadValue)
}

// check makes LineMessageReader's checks: separators that could not be
// told apart are an error.
func (s *readerSettings) check() error {
	pairs := []struct {
		a, b   string
		va, vb string
	}{
		{propHeadersDelim, propHeadersSep, s.headersDelim, s.headersSep},
		{propHeadersDelim, propHeadersKeySep, s.headersDelim, s.headersKeySep},
		{propHeadersSep, propHeadersKeySep, s.headersSep, s.headersKeySep},
	}
	if s.nullMarker != nil {
		for _, o := range []struct{ name, v string }{{propKeySeparator, s.keySep}, {propHeadersSep, s.headersSep},
			{propHeadersDelim, s.headersDelim}, {propHeadersKeySep, s.headersKeySep}} {
			pairs = append(pairs, struct{ a, b, va, vb string }{propNullMarker, o.name, *s.nullMarker, o.v})
		}
	}
	for _, p := range pairs {
		if p.va == p.vb {
			return fmt.Errorf("%s and %s may not be equal (%q)", p.a, p.b, p.va)
		}
	}
	return nil
}

// quoteEscapes writes s in the syntax of kproduce's delimiter options,
// which decode backslash escapes: a backslash is doubled.
func quoteEscapes(s string) string { return strings.ReplaceAll(s, `\`, `\\`) }
