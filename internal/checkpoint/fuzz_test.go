package checkpoint

import (
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
)

// FuzzParse checks that decoding a checkpoint record never panics, that a
// checkpoint it accepts is written back (Marshal) to one it reads the
// same, and that the inputs and options it records pass CheckInputs and
// Skip of their own recorded prefix, and Resume, do not panic.
func FuzzParse(f *testing.F) {
	good := &Checkpoint{Version: Version, TransactionalID: "load", Options: map[string]string{"format": "lines", "topic": "t"},
		Sources: []Source{{Name: "-", Records: 2, Bytes: 4, SHA256: strings.Repeat("ab", 32)}}, Records: 2, Transactions: 1,
		Written: "2026-01-01T00:00:00Z"}
	f.Add(good.Marshal())
	sum := strings.Repeat("cd", 32)
	folded := *good
	folded.Folded = &Folded{Count: 3, Bytes: 9, SHA256: sum, GroupSize: 2, Groups: []string{sum, sum}}
	f.Add(folded.Marshal())
	f.Add([]byte(`{"version":1,"transactional_id":"load","sources":[{"name":"a","records":-1}]}`))
	f.Add([]byte(`{"version":1,"transactional_id":"load","options":{"topic":null},"sources":null}`))
	f.Add([]byte(`{"version":2}`))
	f.Add([]byte("\xff"))
	f.Fuzz(func(t *testing.T, value []byte) {
		cp, err := Parse(value, "load")
		if err != nil {
			return
		}
		again, err := Parse(cp.Marshal(), "load")
		if err != nil {
			t.Fatalf("written back as %s, it does not parse: %v", cp.Marshal(), err)
		}
		if !reflect.DeepEqual(normalize(cp), normalize(again)) {
			t.Fatalf("%+v written back reads %+v", cp, again)
		}
		var names []string
		for i := range min(cp.FoldedCount(), 64) {
			names = append(names, fmt.Sprintf("f%d", i))
		}
		if cp.FoldedCount() > len(names) {
			return // too many inputs to name
		}
		for _, s := range cp.Sources {
			names = append(names, s.Name)
		}
		if err := CheckInputs(cp, names, cp.Options); err != nil {
			t.Fatalf("its own inputs and options are refused: %v", err)
		}
		for i := range cp.Sources {
			src := cp.Sources[i]
			src.Bytes = min(src.Bytes, 64)
			_, _ = Skip(strings.NewReader(strings.Repeat("x", 64)), &src, i+1)
		}
		_ = NewTracker("load", names, cp.Options).Resume(cp, func(int) io.Reader { return strings.NewReader("x\n") })
	})
}

// normalize makes empty and nil maps and slices equal for comparison.
func normalize(c *Checkpoint) Checkpoint {
	n := *c
	if len(n.Options) == 0 {
		n.Options = nil
	}
	if len(n.Sources) == 0 {
		n.Sources = nil
	}
	return n
}
