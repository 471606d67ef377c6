package input

import (
	"encoding/binary"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// layoutOf reads input with a format string (and other input flags).
func layoutOf(t *testing.T, layout, input string, bufSize int, args ...string) []gotRecord {
	t.Helper()
	cfg := testConfig(t, append([]string{"-f", layout}, args...)...)
	return readAll(t, newLayoutReader(cfg, "in", strings.NewReader(input), bufSize))
}

// sized is a big-endian uint32 length followed by s.
func sized(s string) string {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], uint32(len(s)))
	return string(b[:]) + s
}

func TestLayoutRecords(t *testing.T) {
	ts := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name, layout, input string
		want                []gotRecord
	}{
		{"rpk's default is lines", `%v\n`, "a\nb\n\nc", []gotRecord{{Value: []byte("a")}, {Value: []byte("b")}, {Value: []byte{}}, {Value: []byte("c")}}},
		{"key and value", `%k %v\n`, "k1 v 1\nk2 v2\n", []gotRecord{{Key: []byte("k1"), Value: []byte("v 1")}, {Key: []byte("k2"), Value: []byte("v2")}}},
		{"topic", `%t,%v\n`, "a,1\nb,2\n", []gotRecord{{Topic: "a", Value: []byte("1")}, {Topic: "b", Value: []byte("2")}}},
		{"length-prefixed binary", `%K{big32}%k%V{big32}%v`, sized("k\n1") + sized("v\x00\n") + sized("") + sized("x"),
			[]gotRecord{{Key: []byte("k\n1"), Value: []byte("v\x00\n")}, {Key: []byte{}, Value: []byte("x")}}},
		{"ascii sizes", `%K %V %k%v\n`, "2 3 abcde\n0 1 z\n", []gotRecord{{Key: []byte("ab"), Value: []byte("cde")}, {Key: []byte{}, Value: []byte("z")}}},
		{"headers", `%H %h{%k=%v;}%v\n`, "2 a=1;b=;val\n0 v\n", []gotRecord{
			{Value: []byte("val"), Headers: []protocol.Header{h("a", "1"), h("b", "")}}, {Value: []byte("v")}}},
		{"sized headers", `%H{byte}%h{%K{byte}%k%V{byte}%v}%v\n`, "\x01\x01k\x02vvrest\n", []gotRecord{
			{Value: []byte("rest"), Headers: []protocol.Header{h("k", "vv")}}}},
		{"partition and timestamp", `%p %d %v\n`, "3 1700000000000 x\n-1 5 y\n", []gotRecord{
			{Partition: 3, Timestamp: 1700000000000, Value: []byte("x")}, {Partition: -1, Timestamp: 5, Value: []byte("y")}}},
		{"go timestamp", `%d{go#2006-01-02T15:04:05Z#} %v\n`, "2026-01-02T03:04:05Z x\n", []gotRecord{
			{Timestamp: ts.UnixMilli(), Value: []byte("x")}}},
		{"named go timestamp", `%d{go[RFC3339]};%v\n`, "2026-01-02T03:04:05Z;x\n", []gotRecord{{Timestamp: ts.UnixMilli(), Value: []byte("x")}}},
		{"hex and base64", `%k{hex} %v{base64}\n`, "6b31 dmFsdWU=\n", []gotRecord{{Key: []byte("k1"), Value: []byte("value")}}},
		{"ignored fields", `%o %e %x %y %v\n`, "10 2 99 1 x\n", []gotRecord{{Value: []byte("x")}}},
		{"fixed sizes", `%K{2}%V{3}%k%v`, "abcde", []gotRecord{{Key: []byte("ab"), Value: []byte("cde")}}},
		{"binary numbers", `%p{big16}%d{little32}%v\n`, "\x00\x02\x05\x00\x00\x00x\n", []gotRecord{{Partition: 2, Timestamp: 5, Value: []byte("x")}}},
		{"hex numbers", `%p{hex8}%V{hex}:%v`, "0a3:abc", []gotRecord{{Partition: 10, Value: []byte("abc")}}},
		{"escapes", `%k\t%v\x1e`, "a\tb\x1ec\td\x1e", []gotRecord{{Key: []byte("a"), Value: []byte("b")}, {Key: []byte("c"), Value: []byte("d")}}},
		{"percent and braces as text", `%k%%{%}%v\n`, "a%{}b\n", []gotRecord{{Key: []byte("a"), Value: []byte("b")}}},
		{"the last value reads to the end", `%k:%v`, "a:b\nc", []gotRecord{{Key: []byte("a"), Value: []byte("b\nc")}}},
		{"multi-byte delimiter", `%k<>%v||`, "a<>b||c<>d|e||", []gotRecord{{Key: []byte("a"), Value: []byte("b")}, {Key: []byte("c"), Value: []byte("d|e")}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, size := range []int{16, 17, inputBufferSize} {
				recs := layoutOf(t, tt.layout, tt.input, size)
				require.Len(t, recs, len(tt.want), "buffer %d", size)
				for i, w := range tt.want {
					w.Number = int64(i + 1)
					if w.Partition == 0 && !strings.Contains(tt.layout, "%p") {
						w.Partition = -1
					}
					assert.Equal(t, w, recs[i], "buffer %d, record %d", size, i+1)
				}
			}
		})
	}
}

// TestLayoutBadRecords: a record that does not match fails on its own and
// reading resumes after the layout's final text; without final text, the
// input ends there. A truncated record fails; a record over
// --max-record-bytes fails without being held.
func TestLayoutBadRecords(t *testing.T) {
	recs := layoutOf(t, `%p %v\n`, "1 a\nx b\n2 c\n", 64)
	require.Len(t, recs, 3)
	assert.Equal(t, "a", string(recs[0].Value))
	assert.ErrorIs(t, recs[1].Err, ErrBadRecord)
	assert.ErrorContains(t, recs[1].Err, "expected a number")
	assert.Equal(t, "c", string(recs[2].Value))
	assert.Equal(t, []int64{1, 2, 3}, numbers(recs))

	recs = layoutOf(t, `%k{hex} %v\n`, "zz a\n6b b\n", 64)
	require.Len(t, recs, 2)
	assert.ErrorContains(t, recs[0].Err, "%k{hex}")
	assert.Equal(t, "k", string(recs[1].Key), "a field that does not decode leaves the next record whole")

	cfg := testConfig(t, "-f", `%K{big32}%k%V{big32}%v`)
	rr := newLayoutReader(cfg, "in", strings.NewReader(sized("k")+sized("v")+sized("k")+"\x00\x00"), 64)
	got := readAll(t, rr)
	require.Len(t, got, 2)
	assert.NoError(t, got[0].Err)
	assert.ErrorContains(t, got[1].Err, "the input ends inside the record")

	cfg = testConfig(t, "-f", `%k:%v`)
	rr = newLayoutReader(cfg, "in", strings.NewReader("no colon"), 64)
	got = readAll(t, rr)
	require.Len(t, got, 1)
	assert.ErrorContains(t, got[0].Err, "ends inside the record")

	cfg = testConfig(t, "-f", `%V{ascii}%v`)
	rr = newLayoutReader(cfg, "in", strings.NewReader("3abcx"), 64)
	var rec Record
	require.NoError(t, rr.Next(&rec))
	assert.Equal(t, "abc", string(rec.Value))
	require.NoError(t, rr.Next(&rec))
	assert.ErrorIs(t, rec.Err, ErrBadRecord)
	assert.ErrorIs(t, rr.Next(&rec), ErrBadRecord, "no text to resume at: the input stops")

	big := strings.Repeat("x", 100)
	recs = layoutOf(t, `%k %v\n`, "k "+big+"\nk2 ok\n", 16, "--max-record-bytes", "50")
	require.Len(t, recs, 2)
	assert.ErrorIs(t, recs[0].Err, ErrRecordTooLarge)
	assert.Equal(t, "ok", string(recs[1].Value))
	recs = layoutOf(t, `%V{big32}%v`, sized(big)+sized("ok"), 16, "--max-record-bytes", "50")
	require.Len(t, recs, 2)
	assert.ErrorIs(t, recs[0].Err, ErrRecordTooLarge)
	assert.Equal(t, "ok", string(recs[1].Value))
}

// TestLayoutShaping: -k, -H, --null, -Z and --skip-empty apply as for
// lines.
func TestLayoutShaping(t *testing.T) {
	recs := layoutOf(t, `%v\n`, "a\nNIL\n\n", 64, "-k", "dk", "-H", "x=1", "--null", "NIL", "--skip-empty")
	require.Len(t, recs, 2)
	assert.Equal(t, "dk", string(recs[0].Key))
	assert.Equal(t, []protocol.Header{h("x", "1")}, recs[0].Headers)
	assert.Nil(t, recs[1].Value)
	assert.Equal(t, []int64{1, 2}, numbers(recs))
	recs = layoutOf(t, `%k %v\n`, " \n", 64, "-Z")
	require.Len(t, recs, 1)
	assert.Nil(t, recs[0].Key)
	assert.Nil(t, recs[0].Value)
}

func TestParseLayoutErrors(t *testing.T) {
	for layout, want := range map[string]string{
		`%k%v\n`:           "%k needs text after it",
		`%v%k`:             "%v needs text after it",
		`%k\n`:             "no %v",
		`%q%v`:             "unknown verb %q",
		`%v\n%v\n`:         "%v given twice",
		`%k %K %v`:         "%K must come before %k",
		`%h{%k=%v;}%v\n`:   "%h needs the number of headers (%H)",
		`%H%h{%k=%v}%v\n`:  "%v needs text after it inside the braces",
		`%H%h{%k;}%v\n`:    "needs %k and %v",
		`%H%h{%t=%v;}%v\n`: "can only use %k, %v, %K and %V",
		`%H%h{%k=%v;%v\n`:  "not closed",
		`%v{json}\n`:       "want hex, base64 or base64raw",
		`%V{nibble}%v`:     "number format {nibble}",
		`%v{hex\n`:         "not closed",
		`%d{go#bad}%v\n`:   "must end with #",
		`\q%v`:             "bad escape",
		"":                 "empty",
	} {
		_, err := ParseLayout(layout)
		require.Error(t, err, layout)
		assert.ErrorIs(t, err, ErrBadLayout, layout)
		assert.Contains(t, err.Error(), want, layout)
	}
	l, err := ParseLayout(`%t %v\n`)
	require.NoError(t, err)
	assert.True(t, l.HasTopic())
	assert.Equal(t, `%t %v\n`, l.String())
}
