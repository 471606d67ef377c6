package report

import (
	"strings"
	"testing"
)

// FuzzTemplate checks that template parsing never panics and that a
// template without directives prints its literal text.
func FuzzTemplate(f *testing.F) {
	f.Add(`%t/%p@%o\n`)
	f.Add(`100%% \x41\\`)
	f.Fuzz(func(t *testing.T, tmpl string) {
		parts, err := parseTemplate(tmpl)
		if err != nil {
			return
		}
		out := appendTemplate(nil, parts, &Record{Record: okReport().rec, Source: "-", Number: 12})
		if !strings.ContainsAny(tmpl, `%\`) && string(out) != tmpl {
			t.Fatalf("%q printed %q", tmpl, out)
		}
	})
}
