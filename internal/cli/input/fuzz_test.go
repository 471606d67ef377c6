package input

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzLinesReader checks that the lines reader never panics and loses or
// invents no byte: the records joined with the delimiter give back the
// input, and a -K split gives back each record.
func FuzzLinesReader(f *testing.F) {
	f.Add([]byte("a\nb\n"), "\n", ":", uint8(0), uint16(100))
	f.Add([]byte("k:v||x||"), "||", ":", uint8(3), uint16(5))
	f.Add([]byte("aaaa"), "aa", "a", uint8(1), uint16(2))
	f.Add([]byte("\r\n\r\n\x00\xff"), "\r\n", "\x00", uint8(7), uint16(1))
	f.Fuzz(func(t *testing.T, input []byte, delim, keyDelim string, bufSeed uint8, limit uint16) {
		if delim == "" || len(delim) > 64 {
			return
		}
		cfg := &Config{Format: FormatLines, Delimiter: []byte(delim), MaxRecordBytes: int64(limit) + 1}
		if keyDelim != "" {
			cfg.KeyDelimiter = []byte(keyDelim)
		}
		r := newLinesReader(cfg, "-", bytes.NewReader(input), minSplitBuffer+int(bufSeed))
		var raws [][]byte
		for n := int64(1); ; n++ {
			var rec Record
			err := r.Next(&rec)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("read error on a bytes.Reader: %v", err)
			}
			if rec.Number != n {
				t.Fatalf("record %d numbered %d", n, rec.Number)
			}
			raw := rebuild(t, cfg, &rec)
			if rec.Err == nil && int64(len(raw)) > cfg.MaxRecordBytes {
				t.Fatalf("record of %d bytes accepted over the limit %d", len(raw), cfg.MaxRecordBytes)
			}
			raws = append(raws, raw)
		}
		checkJoin(t, input, delim, raws, cfg.MaxRecordBytes)
	})
}

// rebuild returns the raw record from rec (nil for a failed record).
func rebuild(t *testing.T, cfg *Config, rec *Record) []byte {
	if rec.Err != nil {
		return nil
	}
	if rec.Value == nil {
		t.Fatal("a lines record without --null has a null value")
	}
	if rec.Key == nil {
		if cfg.KeyDelimiter != nil && bytes.Contains(rec.Value, cfg.KeyDelimiter) {
			t.Fatalf("value %q holds the key delimiter but no key was split", rec.Value)
		}
		return append([]byte{}, rec.Value...)
	}
	if bytes.Contains(rec.Key, cfg.KeyDelimiter) {
		t.Fatalf("key %q holds the key delimiter", rec.Key)
	}
	raw := append([]byte{}, rec.Key...)
	raw = append(raw, cfg.KeyDelimiter...)
	return append(raw, rec.Value...)
}

// checkJoin checks that the records are the input split at the delimiter;
// failed (too large) records must be exactly the parts over the limit.
func checkJoin(t *testing.T, input []byte, delim string, raws [][]byte, limit int64) {
	want := strings.Split(string(input), delim)
	if want[len(want)-1] == "" { // the input ends with a delimiter (or is empty)
		want = want[:len(want)-1]
	}
	if len(want) != len(raws) {
		t.Fatalf("%d records, want %d", len(raws), len(want))
	}
	for i, w := range want {
		if raws[i] == nil {
			if int64(len(w)) <= limit {
				t.Fatalf("record %d (%d bytes) failed under the limit %d", i+1, len(w), limit)
			}
			continue
		}
		if string(raws[i]) != w {
			t.Fatalf("record %d is %q, want %q", i+1, raws[i], w)
		}
	}
}

// FuzzJSONReader checks that the json reader never panics, accepts only
// valid JSON, and decodes values as encoding/json does.
func FuzzJSONReader(f *testing.F) {
	f.Add([]byte(`{"topic":"t","partition":1,"key":"k","value":"v","headers":{"a":"1"},"timestamp":5}`))
	f.Add([]byte(`{"topic":"src","partition":0,"offset":0,"tstype":"create","ts":1,"broker":0,"headers":["a","1","b",null],"key":null,"payload":"x"}`))
	f.Add([]byte(`{"value":{"a":[1,2.5e3,true,null,"\u00e9"]},"headers":[{"key":"k","value":"v"}]}`))
	f.Add([]byte("{\"value\":\"\\ud83d\\ude00\\n\"}\n\n[1]\n{\"value\":\"\xff\"}"))
	f.Fuzz(func(t *testing.T, input []byte) {
		cfg := &Config{Format: FormatJSON, Delimiter: []byte("\n"), MaxRecordBytes: 1 << 20}
		r := newJSONReader(cfg, "-", bytes.NewReader(input), 64)
		lines := strings.Split(string(input), "\n")
		for {
			var rec Record
			err := r.Next(&rec)
			if err == io.EOF {
				return
			}
			if err != nil {
				t.Fatalf("read error on a bytes.Reader: %v", err)
			}
			if rec.Number < 1 || int(rec.Number) > len(lines) {
				t.Fatalf("record number %d out of %d lines", rec.Number, len(lines))
			}
			if rec.Err == nil {
				checkJSONRecord(t, []byte(lines[rec.Number-1]), &rec)
			}
		}
	})
}

// checkJSONRecord compares an accepted record with encoding/json.
func checkJSONRecord(t *testing.T, line []byte, rec *Record) {
	if !json.Valid(line) {
		t.Fatalf("accepted invalid JSON %q", line)
	}
	if !utf8.Valid(line) {
		return // encoding/json replaces bytes that kproduce keeps
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(line, &fields); err != nil {
		t.Fatalf("accepted %q, which encoding/json rejects: %v", line, err)
	}
	raw, ok := fields["value"]
	if !ok {
		raw, ok = fields["payload"]
	}
	if !ok {
		t.Fatalf("accepted %q without a value", line)
	}
	var want []byte
	var s *string
	if err := json.Unmarshal(raw, &s); err == nil {
		if s != nil {
			want = []byte(*s)
		}
	} else {
		var b bytes.Buffer
		if err := json.Compact(&b, raw); err != nil {
			t.Fatal(err)
		}
		want = b.Bytes()
	}
	if (want == nil) != (rec.Value == nil) || !bytes.Equal(want, rec.Value) {
		t.Fatalf("value of %q is %q, encoding/json says %q", line, rec.Value, want)
	}
}
