package javaprops

import (
	"strings"
	"testing"
)

// jaasSeeds are the corpus every JAAS fuzz target starts from.
func jaasSeeds(f *testing.F) {
	for _, s := range []string{
		`org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="p";`,
		"M required username=\"J\xfcrgen\" password=\"SECRETPLAIN1\";",
		`M required password = "a \" b" user="x";`,
		"\xff password",
		"İ required password=x;",
		`M optional;`,
		`M required clientSecret="s" tokenauth=true;`,
	} {
		f.Add(s)
	}
}

// FuzzParseJAAS checks that the JAAS parser never panics, that the spans
// it records are ordered and inside the text, and that every value read
// is found again by parsing the text built back from the options.
func FuzzParseJAAS(f *testing.F) {
	jaasSeeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		cfg, err := ParseJAAS(s)
		if err != nil {
			return
		}
		last := 0
		for _, sp := range cfg.spans {
			if sp.Start < last || sp.End <= sp.Start || sp.End > len(s) {
				t.Fatalf("span %+v out of order or outside the text of %d bytes (last end %d)", sp, len(s), last)
			}
			last = sp.End
		}
		var b strings.Builder
		b.WriteString(cfg.Module + " " + cfg.Flag)
		for name, v := range cfg.Options {
			b.WriteString(" " + name + `="` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(v) + `"`)
		}
		b.WriteString(";")
		again, err := ParseJAAS(b.String())
		if err != nil {
			t.Fatalf("re-parse of %q: %v", b.String(), err)
		}
		for name, v := range cfg.Options {
			if again.Options[name] != v {
				t.Fatalf("option %q: %q, re-parsed as %q", name, v, again.Options[name])
			}
		}
	})
}

// FuzzRedactJAAS checks that the redactor never panics and never shows a
// secret option's value: the redacted text parses to the same options,
// every secret one Redacted; a text that does not parse is redacted whole.
func FuzzRedactJAAS(f *testing.F) {
	jaasSeeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		out := RedactJAAS(s)
		cfg, err := ParseJAAS(s)
		if err != nil {
			if out != Redacted {
				t.Fatalf("malformed %q redacted as %q", s, out)
			}
			return
		}
		red, err := ParseJAAS(out)
		if err != nil {
			t.Fatalf("redacted %q (from %q) does not parse: %v", out, s, err)
		}
		if len(red.Options) != len(cfg.Options) || red.Module != cfg.Module {
			t.Fatalf("redacted %q has module %q and %d options, want %q and %d", out, red.Module, len(red.Options), cfg.Module, len(cfg.Options))
		}
		for name, v := range cfg.Options {
			want := v
			if IsSecretJAASOption(name) {
				want = Redacted
			}
			if red.Options[name] != want {
				t.Fatalf("option %q of %q redacted as %q, want %q", name, s, red.Options[name], want)
			}
		}
	})
}
