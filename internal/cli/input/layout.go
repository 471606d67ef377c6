package input

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/kproduce/kproduce/internal/escape"
)

// ErrBadLayout is wrapped by every error about a malformed format string.
var ErrBadLayout = errors.New("bad format string")

// A format string (rpk topic produce -f, kcl produce -f) says how input is
// read into records: text stands for itself (escapes \t \n \r \\ \xNN, and
// %% %{ %}), and % verbs read a record's parts:
//
//	%t %k %v     topic, key, value: up to the text that follows, or the
//	             size read before by %T %K %V; the last one may read to
//	             the end of the input; {hex} {base64} {base64raw} decode
//	%T %K %V %H  sizes of topic, key and value, number of headers
//	%h{...}      the headers (%H of them), each read by the layout in
//	             braces, of %k %v %K %V and text
//	%p %d        partition, timestamp (milliseconds, or %d{go#LAYOUT#})
//	%o %e %x %y  offset, leader epoch, producer id and epoch: read, unused
//
// Numbers are ASCII digits unless braces say otherwise: {ascii} {number}
// {hex64} {hex32} {hex16} {hex8} {hex4} {hex} {big64} {big32} {big16}
// {big8} {little64} {little32} {little16} {little8} {byte} {bool}, or a
// fixed {N} that reads nothing.

// Layout is a parsed format string.
type Layout struct {
	text  string
	steps []step
	// terminator is the text that ends every record, when the layout ends
	// with text: after a record fails, reading resumes after it.
	terminator []byte
	hasTopic   bool
}

// String returns the format string as given.
func (l *Layout) String() string { return l.text }

// HasTopic reports whether records name their own topic (%t).
func (l *Layout) HasTopic() bool { return l.hasTopic }

// stepKind is what a step of a layout reads.
type stepKind int

const (
	stepText    stepKind = iota // exact text
	stepField                   // a topic, key or value
	stepNumber                  // a size, count or number
	stepHeaders                 // the headers
)

// part is the part of a record a step reads into.
type part int

const (
	partTopic part = iota
	partKey
	partValue
	partTopicSize
	partKeySize
	partValueSize
	partHeaderCount
	partPartition
	partTimestamp
	partIgnored // offset, leader epoch, producer id and epoch
	partHeaders
)

// numFormat is how a number is read.
type numFormat struct {
	kind  string // ascii, hex (variable), hexN, big, little, bool, fixed
	width int    // bytes (big, little) or hex digits (hexN)
	fixed int64  // the value of a fixed {N}
}

// step is one element of a layout.
type step struct {
	kind stepKind
	part part
	text []byte // stepText: the text; stepField: the text that ends it, nil when sized or last
	// sized fields read the size a %T %K %V read before.
	sized bool
	// decode is "", hex, base64 or base64raw.
	decode string
	num    numFormat
	// goLayout reads a timestamp as a Go time layout, up to text.
	goLayout string
	sub      []step // stepHeaders: the layout of one header
}

// ParseLayout parses an rpk-style format string.
func ParseLayout(s string) (*Layout, error) {
	p := &layoutParser{s: s}
	steps, err := p.parse(false)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadLayout, err)
	}
	l := &Layout{text: s, steps: steps}
	if err := l.check(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadLayout, err)
	}
	return l, nil
}

// check applies the rules a layout must follow to be read without doubt.
func (l *Layout) check() error {
	seen := map[part]bool{}
	for i, st := range l.steps {
		if st.kind != stepText {
			if seen[st.part] && st.part != partIgnored {
				return fmt.Errorf("%s given twice", partVerb(st.part))
			}
			seen[st.part] = true
		}
		if err := checkField(st, i == len(l.steps)-1); err != nil {
			return err
		}
	}
	if !seen[partValue] {
		return errors.New("no %v: a record needs its value")
	}
	l.hasTopic = seen[partTopic]
	if last := l.steps[len(l.steps)-1]; last.kind == stepText {
		l.terminator = last.text
	} else if last.kind == stepField && !last.sized && last.text != nil {
		l.terminator = last.text
	}
	return nil
}

// checkField checks that a field can tell where it ends.
func checkField(st step, last bool) error {
	if st.kind == stepField && !st.sized && st.text == nil && !last {
		return fmt.Errorf("%s needs text after it, or its size before it (%s)", partVerb(st.part), partVerb(st.part+partTopicSize))
	}
	if st.kind == stepHeaders {
		var key, value bool
		for _, h := range st.sub {
			if h.kind == stepField && !h.sized && h.text == nil {
				return fmt.Errorf("in %%h{...}, %s needs text after it inside the braces, or its size before it", partVerb(h.part))
			}
			key, value = key || (h.kind == stepField && h.part == partKey), value || (h.kind == stepField && h.part == partValue)
		}
		if !key || !value {
			return errors.New("%h{...} reads a header's key and value: it needs %k and %v")
		}
	}
	return nil
}

// partVerb is the verb that reads a part.
func partVerb(p part) string {
	switch p {
	case partIgnored:
		return "%o"
	case partHeaders:
		return "%h"
	}
	return "%" + string("tkvTKVHpd"[p])
}

// layoutParser scans a format string.
type layoutParser struct {
	s string
	i int
}

// layoutState is what one level of a layout (the record's, or a
// header's) has read so far.
type layoutState struct {
	sizes, fields map[part]bool
}

// parse reads steps up to the end, or, for a header layout, up to the
// closing brace.
func (p *layoutParser) parse(header bool) ([]step, error) {
	var steps []step
	var text []byte
	flush := func() {
		if len(text) == 0 {
			return
		}
		if n := len(steps); n > 0 && steps[n-1].kind == stepField && !steps[n-1].sized && steps[n-1].text == nil {
			steps[n-1].text = text // the text ends the field before it
		} else {
			steps = append(steps, step{kind: stepText, text: text})
		}
		text = nil
	}
	st := layoutState{sizes: map[part]bool{}, fields: map[part]bool{}}
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case header && c == '}':
			flush()
			return steps, nil
		case c == '\\':
			b, n, err := escape.Decode(p.s, p.i)
			if err != nil {
				return nil, err
			}
			text = append(text, b)
			p.i += n
			continue
		case c != '%' || p.i+1 == len(p.s):
			text = append(text, c)
			p.i++
			continue
		}
		verb := p.s[p.i+1]
		p.i += 2
		if verb == '%' || verb == '{' || verb == '}' {
			text = append(text, verb)
			continue
		}
		flush()
		next, err := p.verb(verb, header, st)
		if err != nil {
			return nil, err
		}
		steps = append(steps, next)
	}
	flush()
	if header {
		return nil, errors.New("%h{ is not closed")
	}
	if len(steps) == 0 {
		return nil, errors.New("empty")
	}
	return steps, nil
}

// verb parses the verb after a %, and its braces.
func (p *layoutParser) verb(verb byte, header bool, st layoutState) (step, error) {
	if header && !strings.ContainsRune("kvKV", rune(verb)) {
		return step{}, fmt.Errorf("%%h{...} can only use %%k, %%v, %%K and %%V, not %%%c", verb)
	}
	if verb == 'h' {
		if !st.sizes[partHeaderCount] {
			return step{}, errors.New("%h needs the number of headers (%H) before it")
		}
		return p.headers()
	}
	mod, err := p.modifier()
	if err != nil {
		return step{}, err
	}
	switch verb {
	case 't', 'k', 'v':
		pt := map[byte]part{'t': partTopic, 'k': partKey, 'v': partValue}[verb]
		switch mod {
		case "", "hex", "base64", "base64raw":
		default:
			return step{}, fmt.Errorf("%%%c{%s}: want hex, base64 or base64raw (regular expressions and json are not supported)", verb, mod)
		}
		st.fields[pt] = true
		return step{kind: stepField, part: pt, sized: st.sizes[pt+partTopicSize], decode: mod}, nil
	case 'T', 'K', 'V', 'H':
		pt := map[byte]part{'T': partTopicSize, 'K': partKeySize, 'V': partValueSize, 'H': partHeaderCount}[verb]
		if pt != partHeaderCount && st.fields[pt-partTopicSize] {
			return step{}, fmt.Errorf("%%%c must come before %s, whose size it reads", verb, partVerb(pt-partTopicSize))
		}
		st.sizes[pt] = true
		num, err := parseNumFormat(mod)
		return step{kind: stepNumber, part: pt, num: num}, err
	case 'p', 'd', 'o', 'e', 'x', 'y':
		pt := map[byte]part{'p': partPartition, 'd': partTimestamp}[verb]
		if verb != 'p' && verb != 'd' {
			pt = partIgnored
		}
		if verb == 'd' && strings.HasPrefix(mod, "go") {
			layout, err := goTimeLayout(mod[2:])
			return step{kind: stepField, part: partTimestamp, goLayout: layout}, err
		}
		num, err := parseNumFormat(mod)
		return step{kind: stepNumber, part: pt, num: num}, err
	}
	return step{}, fmt.Errorf("unknown verb %%%c", verb)
}

// modifier reads the braces after a verb, if any.
func (p *layoutParser) modifier() (string, error) {
	if p.i >= len(p.s) || p.s[p.i] != '{' {
		return "", nil
	}
	end := strings.IndexByte(p.s[p.i:], '}')
	if end < 0 {
		return "", errors.New("a { is not closed")
	}
	mod := p.s[p.i+1 : p.i+end]
	p.i += end + 1
	return mod, nil
}

// headers parses the braces of %h.
func (p *layoutParser) headers() (step, error) {
	if p.i >= len(p.s) || p.s[p.i] != '{' {
		return step{}, errors.New("%h reads its layout in braces right after it: %h{%k=%v;}")
	}
	p.i++
	sub, err := p.parse(true)
	if err != nil {
		return step{}, err
	}
	p.i++ // the closing brace
	if len(sub) == 0 {
		return step{}, errors.New("%h{} is empty")
	}
	return step{kind: stepHeaders, part: partHeaders, sub: sub}, nil
}

// parseNumFormat reads a number modifier.
func parseNumFormat(mod string) (numFormat, error) {
	switch mod {
	case "", "ascii", "number":
		return numFormat{kind: "ascii"}, nil
	case "hex":
		return numFormat{kind: "hex"}, nil
	case "hex64", "hex32", "hex16", "hex8", "hex4":
		bits, _ := strconv.Atoi(mod[3:])
		return numFormat{kind: "hexN", width: bits / 4}, nil
	case "big64", "big32", "big16", "big8", "little64", "little32", "little16", "little8":
		kind := strings.TrimRight(mod, "0123456789")
		bits, _ := strconv.Atoi(mod[len(kind):])
		return numFormat{kind: kind, width: bits / 8}, nil
	case "byte":
		return numFormat{kind: "big", width: 1}, nil
	case "bool":
		return numFormat{kind: "bool"}, nil
	}
	n, err := strconv.ParseInt(mod, 10, 64)
	if err != nil || n < 0 {
		return numFormat{}, fmt.Errorf("number format {%s}: want ascii, hex, hex64..hex4, big64..big8, little64..little8, byte, bool or a fixed number", mod)
	}
	return numFormat{kind: "fixed", fixed: n}, nil
}

// goTimeLayout reads the Go time layout of %d{go#LAYOUT#}: between two
// equal characters, or a bracket pair, or one of the names RFC3339,
// RFC3339Nano, DateTime, DateOnly, TimeOnly, RFC1123, RFC1123Z, RFC822,
// RFC822Z, Kitchen, ANSIC, UnixDate.
func goTimeLayout(s string) (string, error) {
	named := map[string]string{"RFC3339": time.RFC3339, "RFC3339Nano": time.RFC3339Nano, "DateTime": time.DateTime,
		"DateOnly": time.DateOnly, "TimeOnly": time.TimeOnly, "RFC1123": time.RFC1123, "RFC1123Z": time.RFC1123Z,
		"RFC822": time.RFC822, "RFC822Z": time.RFC822Z, "Kitchen": time.Kitchen, "ANSIC": time.ANSIC, "UnixDate": time.UnixDate}
	if len(s) < 3 {
		return "", errors.New("%d{go#LAYOUT#} needs a layout between two # (or another character)")
	}
	open, closing := s[0], s[0]
	if i := strings.IndexByte("([<", open); i >= 0 {
		closing = ")]>"[i]
	}
	if s[len(s)-1] != closing {
		return "", fmt.Errorf("%%d{go%s}: the layout must end with %c", s, closing)
	}
	layout := s[1 : len(s)-1]
	if n, ok := named[layout]; ok {
		return n, nil
	}
	if layout == "" {
		return "", errors.New("%d{go##}: empty layout")
	}
	return layout, nil
}
