package report

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/kproduce/kproduce/internal/escape"
)

// ErrBadTemplate is wrapped by every error about a malformed output template.
var ErrBadTemplate = errors.New("bad output template")

// tmplPart is one piece of a parsed output template: literal bytes, or a
// directive (the letter after %).
type tmplPart struct {
	literal   []byte
	directive byte // 0 for a literal
}

// parseTemplate parses an output template: %t topic, %p partition, %o
// offset, %d timestamp (ms), %k key, %v value, %s source, %n record number,
// %e error, %% a percent sign; the backslash escapes of delimiters (\n \t
// \r \0 \\ \xNN). No newline is added.
func parseTemplate(s string) ([]tmplPart, error) {
	var parts []tmplPart
	var lit []byte
	flush := func() {
		if len(lit) > 0 {
			parts = append(parts, tmplPart{literal: lit})
			lit = nil
		}
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			b, n, err := escape.Decode(s, i)
			if err != nil {
				return nil, fmt.Errorf("%w: %w", ErrBadTemplate, err)
			}
			lit = append(lit, b)
			i += n - 1
		case '%':
			if i+1 >= len(s) {
				return nil, fmt.Errorf("%w: a lone %% at the end (write %%%% for a percent sign)", ErrBadTemplate)
			}
			i++
			switch d := s[i]; d {
			case '%':
				lit = append(lit, '%')
			case 't', 'p', 'o', 'd', 'k', 'v', 's', 'n', 'e':
				flush()
				parts = append(parts, tmplPart{directive: d})
			default:
				return nil, fmt.Errorf("%w: unknown directive %%%c (want %%t %%p %%o %%d %%k %%v %%s %%n %%e %%%%)", ErrBadTemplate, d)
			}
		default:
			lit = append(lit, c)
		}
	}
	flush()
	return parts, nil
}

// templateFormat prints a template per delivery (and per routed record
// in a dry run): -o '%t/%p@%o\n'.
type templateFormat struct {
	text  string
	parts []tmplPart
}

// parseTemplateFormat parses the template text.
func parseTemplateFormat(text string) (Format, error) {
	parts, err := parseTemplate(text)
	if err != nil {
		return nil, err
	}
	return templateFormat{text: text, parts: parts}, nil
}

func (f templateFormat) String() string { return f.text }
func (f templateFormat) appendRecord(b []byte, r *Record) []byte {
	return appendTemplate(b, f.parts, r)
}
func (f templateFormat) appendDry(b []byte, r *Record) []byte {
	return appendTemplate(b, f.parts, r)
}
func (templateFormat) failuresOnStdout() bool { return false }
func (templateFormat) printsDeliveries() bool { return true }

// needsRecordBytes reports whether the template prints keys or values.
func (f templateFormat) needsRecordBytes() bool {
	for _, p := range f.parts {
		if p.directive == 'k' || p.directive == 'v' {
			return true
		}
	}
	return false
}

// appendTemplate appends the template expanded for rep to dst.
func appendTemplate(dst []byte, parts []tmplPart, rep *Record) []byte {
	for _, p := range parts {
		switch p.directive {
		case 0:
			dst = append(dst, p.literal...)
		case 't':
			dst = append(dst, rep.Topic...)
		case 'p':
			dst = strconv.AppendInt(dst, int64(rep.Partition), 10)
		case 'o':
			dst = strconv.AppendInt(dst, rep.Offset, 10)
		case 'd':
			dst = strconv.AppendInt(dst, rep.timestamp(), 10)
		case 'k':
			dst = append(dst, rep.Key...)
		case 'v':
			dst = append(dst, rep.Value...)
		case 's':
			dst = append(dst, rep.Source...)
		case 'n':
			dst = strconv.AppendInt(dst, rep.Number, 10)
		case 'e':
			if rep.Err != nil {
				dst = append(dst, rep.Err.Error()...)
			}
		}
	}
	return dst
}
