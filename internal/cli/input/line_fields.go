package input

import (
	"bytes"
	"fmt"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// lineFields splits a line into its headers, key and value: the line is
// "headers<HeaderDelimiter>key<KeyDelimiter>value", each part there only
// when its delimiter is configured (the console producer's
// LineMessageReader layout, headers "k1:v1,k2:v2").
type lineFields struct {
	headerDelim, headerSep, headerKeySep []byte
	keyDelim                             []byte
	require                              bool
	nullMarker                           []byte
	nullEnabled                          bool
	// headers are the last line's headers: a new slice per line, so that
	// records read ahead (a batch of a read buffer) keep their own.
	headers []protocol.Header
}

// newLineFields returns the splitter of cfg.
func newLineFields(cfg *Config) lineFields {
	return lineFields{
		headerDelim: cfg.HeaderDelimiter, headerSep: cfg.HeaderSeparator, headerKeySep: cfg.HeaderKeySeparator,
		keyDelim: cfg.KeyDelimiter, require: cfg.RequireDelimiters,
		nullMarker: cfg.NullMarker, nullEnabled: cfg.NullEnabled,
	}
}

// fill sets rec's headers, key and value from line; a line that does not
// split as required gets rec.Err.
func (f *lineFields) fill(rec *Record, line []byte, shaper *recordShaper) {
	if f.headerDelim != nil {
		h, rest, found := bytes.Cut(line, f.headerDelim)
		switch {
		case found:
			if err := f.parseHeaders(h, shaper.headers); err != nil {
				rec.Err = err
				return
			}
			rec.Headers, line = f.headers, rest
		case f.require:
			rec.Err = fmt.Errorf("%w: no header delimiter %q in the line", ErrMissingDelimiter, f.headerDelim)
			return
		}
	}
	if f.keyDelim != nil {
		if k, v, found := bytes.Cut(line, f.keyDelim); found {
			shaper.shape(rec, k, true, v)
			return
		}
		if f.require {
			rec.Err = fmt.Errorf("%w: no key delimiter %q in the line", ErrMissingDelimiter, f.keyDelim)
			return
		}
	}
	shaper.shape(rec, nil, false, line)
}

// parseHeaders reads the headers field of a line into f.headers, followed
// by the -H headers. An empty field, or one equal to the null marker, is
// no header; a value equal to the null marker is null; a key cannot be.
func (f *lineFields) parseHeaders(field []byte, extra []protocol.Header) error {
	f.headers = make([]protocol.Header, 0, 1+bytes.Count(field, f.headerSep)+len(extra))
	if len(field) > 0 && !(f.nullEnabled && bytes.Equal(field, f.nullMarker)) {
		for len(field) > 0 {
			pair, rest, _ := bytes.Cut(field, f.headerSep)
			field = rest
			if len(pair) == 0 {
				continue
			}
			if err := f.addHeader(pair); err != nil {
				return err
			}
		}
	}
	f.headers = append(f.headers, extra...)
	return nil
}

// addHeader adds one KEY<sep>VALUE header.
func (f *lineFields) addHeader(pair []byte) error {
	k, v, found := bytes.Cut(pair, f.headerKeySep)
	if !found {
		if f.require {
			return fmt.Errorf("%w: header %q has no key separator %q", ErrMissingDelimiter, pair, f.headerKeySep)
		}
		k, v = pair, nil
	}
	if f.nullEnabled && bytes.Equal(k, f.nullMarker) {
		return fmt.Errorf("%w: a header key cannot be the null marker %q", ErrBadHeader, f.nullMarker)
	}
	if v != nil && f.nullEnabled && bytes.Equal(v, f.nullMarker) {
		v = nil
	}
	f.headers = append(f.headers, protocol.Header{Key: string(k), Value: v})
	return nil
}
