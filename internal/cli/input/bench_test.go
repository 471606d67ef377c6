package input

import (
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
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

// The format strings (rpk -f) against the lines reader on the same input,
// and franz-go's kgo.RecordReader, which reads the same language, for
// comparison.

func BenchmarkLinesReaderValue(b *testing.B) {
	benchmarkReader(b, strings.Repeat("v", 100)+"\n", "-t", "t")
}

func BenchmarkLayoutReaderValue(b *testing.B) {
	benchmarkReader(b, strings.Repeat("v", 100)+"\n", "-t", "t", "-f", `%v\n`)
}

func BenchmarkLayoutReader(b *testing.B) {
	benchmarkReader(b, "key\t"+strings.Repeat("v", 100)+"\n", "-t", "t", "-f", `%k\t%v\n`)
}

func BenchmarkLayoutReaderBinary(b *testing.B) {
	benchmarkReader(b, "\x00\x00\x00\x03key\x00\x00\x00\x64"+strings.Repeat("v", 100), "-t", "t", "-f", `%K{big32}%k%V{big32}%v`)
}

func BenchmarkLinesReaderHeaders(b *testing.B) {
	benchmarkReader(b, "h1:a,h2:b\tkey\t"+strings.Repeat("v", 100)+"\n", "-t", "t", "--header-delimiter", `\t`, "-K", `\t`)
}

func BenchmarkLayoutReaderHeaders(b *testing.B) {
	benchmarkReader(b, "2 h1=a;h2=b;key\t"+strings.Repeat("v", 100)+"\n", "-t", "t", "-f", `%H %h{%k=%v;}%k\t%v\n`)
}

func BenchmarkKgoRecordReader(b *testing.B) {
	line := "key\t" + strings.Repeat("v", 100) + "\n"
	r, err := kgo.NewRecordReader(&repeatReader{data: []byte(line)}, `%k\t%v\n`)
	if err != nil {
		b.Fatal(err)
	}
	var rec kgo.Record
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		if err := r.ReadRecordInto(&rec); err != nil {
			b.Fatal(err)
		}
	}
}
