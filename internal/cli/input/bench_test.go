package input

import (
	"strings"
	"testing"
)

// benchmarkReader measures reading records of line through the reader of
// args.
func benchmarkReader(b *testing.B, line string, args ...string) {
	cfg := testConfig(b, args...)
	r, err := NewReader(cfg, "-", &repeatReader{data: []byte(line)})
	if err != nil {
		b.Fatal(err)
	}
	var rec Record
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		if err := r.Next(&rec); err != nil || rec.Err != nil {
			b.Fatal(err, rec.Err)
		}
	}
}

func BenchmarkLinesReader(b *testing.B) {
	benchmarkReader(b, "key\t"+strings.Repeat("v", 100)+"\n", "-t", "t", "-K", `\t`)
}

func BenchmarkJSONReader(b *testing.B) {
	benchmarkReader(b, `{"topic":"src","partition":1,"offset":7,"tstype":"create","ts":1764500000000,"broker":0,"headers":["h","v"],"key":"k1","payload":"`+strings.Repeat("v", 100)+`"}`+"\n", "-f", "json")
}
