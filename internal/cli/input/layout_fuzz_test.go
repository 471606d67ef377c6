package input

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// FuzzLayoutReader checks that any format string either fails to parse
// or reads any input without a panic or a hang: every record consumes
// input, keeps its parts within --max-record-bytes, and the reader ends.
func FuzzLayoutReader(f *testing.F) {
	f.Add(`%k %v\n`, []byte("a b\nc d\n"), uint16(100))
	f.Add(`%K{big32}%k%V{big32}%v`, []byte("\x00\x00\x00\x01k\x00\x00\x00\x02vv"), uint16(5))
	f.Add(`%H %h{%k=%v;}%v\n`, []byte("2 a=1;b=2;v\n3 x"), uint16(50))
	f.Add(`%p %d{go#2006#} %t,%v{base64}|`, []byte("1 2026 t,dg==|x"), uint16(9))
	f.Add(`%V{hex}:%v%K{2}%k`, []byte("ff:abc"), uint16(1000))
	f.Fuzz(func(t *testing.T, layout string, input []byte, limit uint16) {
		l, err := ParseLayout(layout)
		if err != nil {
			return
		}
		cfg := &Config{Format: FormatLayout, Layout: l, Delimiter: []byte("\n"), MaxRecordBytes: int64(limit) + 1}
		r := newLayoutReader(cfg, "-", bytes.NewReader(input), 16)
		for n := 1; ; n++ {
			if n > len(input)+2 {
				t.Fatalf("%d records from %d bytes", n, len(input))
			}
			var rec Record
			err := r.Next(&rec)
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				if !errors.Is(err, ErrBadRecord) {
					t.Fatalf("read error on a bytes.Reader: %v", err)
				}
				return
			}
			if rec.Err == nil && int64(len(rec.Key)+len(rec.Value)) > 2*cfg.MaxRecordBytes {
				t.Fatalf("record of %d bytes kept over the limit %d", len(rec.Key)+len(rec.Value), cfg.MaxRecordBytes)
			}
		}
	})
}
