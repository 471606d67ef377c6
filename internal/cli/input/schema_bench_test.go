package input

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/kproduce/kproduce/internal/schema"
)

// The schemas of the benchmarks: one 6-field record in each format.
var benchSchemas = map[string]struct{ file, text string }{
	"avro": {"event.avsc", `{"type":"record","name":"Event","namespace":"bench","fields":[
 {"name":"id","type":"long"},{"name":"user","type":"string"},{"name":"amount","type":"double"},
 {"name":"currency","type":{"type":"enum","name":"Currency","symbols":["EUR","USD","GBP"]}},
 {"name":"ts","type":{"type":"long","logicalType":"timestamp-millis"}},{"name":"note","type":["null","string"],"default":null}]}`},
	"protobuf": {"event.proto", `syntax = "proto3";
package bench;
enum Currency { EUR = 0; USD = 1; GBP = 2; }
message Event { int64 id = 1; string user = 2; double amount = 3; Currency currency = 4; int64 ts = 5; string note = 6; }`},
	"json-schema": {"event.json", `{"$schema":"http://json-schema.org/draft-07/schema#","title":"Event","type":"object",
 "properties":{"id":{"type":"integer"},"user":{"type":"string"},"amount":{"type":"number"},"currency":{"enum":["EUR","USD","GBP"]},
 "ts":{"type":"integer"},"note":{"type":["string","null"]}},"required":["id","user","amount","currency","ts"],"additionalProperties":false}`},
}

// benchEvents are n JSON lines of about 120 bytes each.
func benchEvents(n int) []byte {
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, `{"id":%d,"user":"user-%06d","amount":%d.%02d,"currency":"EUR","ts":%d,"note":"a note of twenty-four ch"}`+"\n",
			i, i%1000000, i%100000, i%100, 1700000000000+i)
	}
	return b.Bytes()
}

// BenchmarkReadBatchSchema reads JSON lines in batches, as a run does,
// encoding each value with a schema; plain is the lines alone.
func BenchmarkReadBatchSchema(b *testing.B) {
	const n = 10000
	data := benchEvents(n)
	for _, format := range []string{"plain", "avro", "protobuf", "json-schema"} {
		b.Run(format, func(b *testing.B) {
			cfg := Config{Format: FormatLines, Delimiter: []byte("\n"), MaxRecordBytes: 1 << 20}
			if format != "plain" {
				s := benchSchemas[format]
				path := filepath.Join(b.TempDir(), s.file)
				if err := os.WriteFile(path, []byte(s.text), 0o644); err != nil {
					b.Fatal(err)
				}
				local, err := schema.Load(&schema.Spec{File: path})
				if err != nil {
					b.Fatal(err)
				}
				cfg.ValueEncoder = local.Encoder(1)
			}
			var batch Batch
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				r, err := NewReader(&cfg, "-", bytes.NewReader(data))
				if err != nil {
					b.Fatal(err)
				}
				records := 0
				for {
					err := ReadBatch(r, &batch, 1024)
					if err == io.EOF {
						break
					}
					for k := range batch.Records {
						if batch.Records[k].Err != nil {
							b.Fatal(batch.Records[k].Err)
						}
					}
					records += len(batch.Records)
				}
				if records != n {
					b.Fatalf("%d records", records)
				}
			}
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/record")
			b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(b.N*n), "allocs/record")
		})
	}
}
