package javaprops

import (
	"strings"
	"testing"
)

// FuzzParseProperties checks that the properties parser never panics and
// that every key and value it returns is found again when written back
// escaped.
func FuzzParseProperties(f *testing.F) {
	f.Add("a=b\n# c\nd : e \\\n  f\n")
	f.Add("k\\ ey=\\u00e9\\t\r\nx")
	f.Fuzz(func(t *testing.T, text string) {
		props, err := ParseProperties(text)
		if err != nil {
			return
		}
		var b strings.Builder
		for _, p := range props {
			b.WriteString(escapeProperty(p.Key, true) + "=" + escapeProperty(p.Value, false) + "\n")
		}
		again, err := ParseProperties(b.String())
		if err != nil {
			t.Fatalf("re-parse of %q: %v", b.String(), err)
		}
		if len(again) != len(props) {
			t.Fatalf("re-parse gave %d properties, want %d", len(again), len(props))
		}
		for i := range props {
			if again[i].Key != props[i].Key || again[i].Value != props[i].Value {
				t.Fatalf("property %d: %q=%q, re-parsed as %q=%q", i, props[i].Key, props[i].Value, again[i].Key, again[i].Value)
			}
		}
	})
}

// escapeProperty writes s so that the properties parser reads it back.
func escapeProperty(s string, key bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			b.WriteString(`\\`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\f':
			b.WriteString(`\f`)
		case c == ' ' && (key || i == 0):
			b.WriteString(`\ `)
		case key && (c == '=' || c == ':' || (i == 0 && (c == '#' || c == '!'))):
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
