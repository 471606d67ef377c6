package protocol

import (
	"bytes"
	"testing"
)

// BenchmarkAppendRecordLine is AppendRecordWithin as a producer of plain
// lines calls it: a null key, a 100-byte value, no header, the offset
// delta counting up through a batch of 10,000 records and a timestamp
// delta of a few milliseconds.
func BenchmarkAppendRecordLine(b *testing.B) {
	value := bytes.Repeat([]byte("v"), 100)
	buf := make([]byte, 0, 10_000*120)
	b.ReportAllocs()
	b.SetBytes(int64(RecordSize(0, 0, nil, value, nil)))
	for i := 0; b.Loop(); i++ {
		od := int32(i % 10_000)
		if od == 0 {
			buf = buf[:0]
		}
		var ok bool
		buf, ok = AppendRecordWithin(buf, cap(buf), od, int64(od/1000), nil, value, nil)
		if !ok {
			b.Fatal("no room")
		}
	}
}

// TestAppendRecordWithinVarintSizes encodes records whose deltas, key and
// value lengths and total size take one to five varint bytes, and decodes
// them back.
func TestAppendRecordWithinVarintSizes(t *testing.T) {
	sizes := []int{0, 1, 63, 64, 65, 8191, 8192, 8193, 1<<20 - 1, 1 << 20, 1<<20 + 1}
	deltas := []int64{0, 1, -1, 63, 64, -64, -65, 8191, 8192, -8193, 1 << 20, 1 << 40, -(1 << 40)}
	var buf []byte
	for _, n := range sizes {
		for _, d := range deltas {
			value := bytes.Repeat([]byte{byte(n)}, n)
			key := value[:min(n, 70)]
			for _, k := range [][]byte{nil, key} {
				var ok bool
				buf, ok = AppendRecordWithin(buf[:0], 1<<30, int32(d), d, k, value, nil)
				if !ok {
					t.Fatalf("size %d delta %d: no room", n, d)
				}
				if len(buf) != RecordSize(int32(d), d, k, value, nil) {
					t.Fatalf("size %d delta %d: %d bytes, RecordSize says %d", n, d, len(buf), RecordSize(int32(d), d, k, value, nil))
				}
				var rec Record
				r := NewReader(buf)
				if err := rec.Decode(r); err != nil || r.Remaining() != 0 {
					t.Fatalf("size %d delta %d: %v, %d bytes left", n, d, err, r.Remaining())
				}
				if rec.TimestampDelta != d || rec.OffsetDelta != int32(d) || !bytes.Equal(rec.Value, value) ||
					!bytes.Equal(rec.Key, k) || (rec.Key == nil) != (k == nil) || len(rec.Headers) != 0 {
					t.Fatalf("size %d delta %d: decoded %+v", n, d, rec)
				}
			}
		}
	}
}
