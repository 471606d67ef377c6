package schema

import "testing"

// benchOrder is a 6-field record of about 120 bytes of JSON.
const benchSchema = `{"type":"record","name":"Event","namespace":"bench","fields":[
 {"name":"id","type":"long"},{"name":"user","type":"string"},{"name":"amount","type":"double"},
 {"name":"currency","type":{"type":"enum","name":"Currency","symbols":["EUR","USD","GBP"]}},
 {"name":"ts","type":{"type":"long","logicalType":"timestamp-millis"}},{"name":"note","type":["null","string"],"default":null}]}`

const benchRecord = `{"id":1234567,"user":"user-000042","amount":1234.56,"currency":"EUR","ts":1700000000123,"note":"a note of some twenty chars"}`

func BenchmarkAvroEncode(b *testing.B) {
	c, err := compileText(FormatAvro, benchSchema, nil, "")
	if err != nil {
		b.Fatal(err)
	}
	text := []byte(benchRecord)
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if _, err := c.payload.appendPayload(buf[:0], text); err != nil {
			b.Fatal(err)
		}
	}
}
