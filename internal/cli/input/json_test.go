package input

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// jsonOf reads input with the json reader of the options given by args.
func jsonOf(t *testing.T, input string, args ...string) []gotRecord {
	t.Helper()
	opts := testConfig(t, append([]string{"-f", "json"}, args...)...)
	return readAll(t, newJSONReader(opts, "in", strings.NewReader(input), 64))
}

// h builds a header; "<nil>" is a null value.
func h(k, v string) protocol.Header {
	if v == "<nil>" {
		return protocol.Header{Key: k}
	}
	return protocol.Header{Key: k, Value: []byte(v)}
}

func TestJSONFields(t *testing.T) {
	recs := jsonOf(t, `{"topic":"t1","partition":3,"key":"k","value":"v","headers":{"a":"1","b":null},"timestamp":1700000000123}`+"\n")
	require.Len(t, recs, 1)
	r := recs[0]
	require.NoError(t, r.Err)
	assert.Equal(t, "t1", r.Topic)
	assert.Equal(t, int32(3), r.Partition)
	assert.Equal(t, "k", string(r.Key))
	assert.Equal(t, "v", string(r.Value))
	assert.Equal(t, []protocol.Header{h("a", "1"), h("b", "<nil>")}, r.Headers)
	assert.Equal(t, int64(1700000000123), r.Timestamp)
	assert.Equal(t, int64(1), r.Number)
}

func TestJSONDefaults(t *testing.T) {
	recs := jsonOf(t, `{"value":"v"}`)
	require.Len(t, recs, 1)
	r := recs[0]
	require.NoError(t, r.Err)
	assert.Equal(t, "", r.Topic, "no topic: the default topic")
	assert.Equal(t, int32(-1), r.Partition)
	assert.Nil(t, r.Key)
	assert.Nil(t, r.Headers)
	assert.Zero(t, r.Timestamp)
}

func TestJSONValues(t *testing.T) {
	tests := []struct {
		name, line string
		key, value *string
	}{
		{"payload is value", `{"payload":"p"}`, nil, ptr("p")},
		{"null value is a tombstone", `{"key":"k","value":null}`, ptr("k"), nil},
		{"null key", `{"key":null,"value":"v"}`, nil, ptr("v")},
		{"empty strings", `{"key":"","value":""}`, ptr(""), ptr("")},
		{"number", `{"value":42}`, nil, ptr("42")},
		{"float kept as written", `{"value":-1.50e+3}`, nil, ptr("-1.50e+3")},
		{"bool key", `{"key":true,"value":false}`, ptr("true"), ptr("false")},
		{"object compacted", `{"value": { "a" : [1, 2.5, true, null, "x y", {}] , "b":{"c":[]}}}`, nil, ptr(`{"a":[1,2.5,true,null,"x y",{}],"b":{"c":[]}}`)},
		{"escapes in nested strings kept", `{"value":["a\"b\u00e9"]}`, nil, ptr(`["a\"b\u00e9"]`)},
		{"string escapes decoded", `{"value":"a\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00"}`, nil, ptr("a\"\\/\b\f\n\r\t\u00e9\U0001F600")},
		{"lone surrogate", `{"value":"\ud800x"}`, nil, ptr("\uFFFDx")},
		{"invalid utf-8 kept", "{\"value\":\"\xff\xfe\\u0001\"}", nil, ptr("\xff\xfe\x01")},
		{"white space around", " \t{ \"value\" : \"v\" } \r", nil, ptr("v")},
		{"unknown fields ignored", `{"offset":3,"tstype":"create","broker":1,"x":{"y":[1,{"z":null}]},"key_error":"e","value":"v"}`, nil, ptr("v")},
		{"duplicate field: last wins", `{"value":"a","value":"b"}`, nil, ptr("b")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs := jsonOf(t, tt.line)
			require.Len(t, recs, 1)
			require.NoError(t, recs[0].Err)
			assertBytes(t, tt.key, recs[0].Key, "key")
			assertBytes(t, tt.value, recs[0].Value, "value")
		})
	}
}

// ptr returns a pointer to s.
func ptr(s string) *string { return &s }

func TestJSONHeaderForms(t *testing.T) {
	tests := []struct {
		name, headers string
		want          []protocol.Header
	}{
		{"object", `{"a":"1","b":"2"}`, []protocol.Header{h("a", "1"), h("b", "2")}},
		{"object with a list of values", `{"a":["1",null,"3"],"b":"x"}`, []protocol.Header{h("a", "1"), h("a", "<nil>"), h("a", "3"), h("b", "x")}},
		{"list of objects", `[{"key":"a","value":"1"},{"value":null,"key":"b"},{"key":"c"}]`, []protocol.Header{h("a", "1"), h("b", "<nil>"), h("c", "<nil>")}},
		{"kcat flat list", `["a","1","b",null,"a","2"]`, []protocol.Header{h("a", "1"), h("b", "<nil>"), h("a", "2")}},
		{"non-string value as JSON text", `{"n":7,"o":{"x":1}}`, []protocol.Header{h("n", "7"), h("o", `{"x":1}`)}},
		{"empty object", `{}`, nil},
		{"empty list", `[]`, nil},
		{"null", `null`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs := jsonOf(t, `{"headers":`+tt.headers+`,"value":"v"}`)
			require.Len(t, recs, 1)
			require.NoError(t, recs[0].Err)
			assert.Equal(t, tt.want, recs[0].Headers)
		})
	}
}

func TestJSONHeadersFollowedByFlagHeaders(t *testing.T) {
	recs := jsonOf(t, `{"headers":{"a":"1"},"value":"v"}`+"\n"+`{"value":"w"}`, "-H", "z=9")
	require.Len(t, recs, 2)
	assert.Equal(t, []protocol.Header{h("a", "1"), h("z", "9")}, recs[0].Headers)
	assert.Equal(t, []protocol.Header{h("z", "9")}, recs[1].Headers)
}

func TestJSONKeyOptions(t *testing.T) {
	input := `{"value":"a"}` + "\n" + `{"key":null,"value":"b"}` + "\n" + `{"key":"k","value":"c"}` + "\n" + `{"key":"N","value":"N"}`
	recs := jsonOf(t, input, "-k", "dk", "--null", "N")
	require.Len(t, recs, 4)
	assertBytes(t, ptr("dk"), recs[0].Key, "no key field: -k")
	assert.Nil(t, recs[1].Key, "an explicit null key stays null")
	assertBytes(t, ptr("k"), recs[2].Key)
	assert.Nil(t, recs[3].Key, "--null applies to the key")
	assert.Nil(t, recs[3].Value, "--null applies to the value")
}

func TestJSONMalformedRecordsFailAlone(t *testing.T) {
	lines := []string{
		`{"value":"ok1"}`,
		`{"value":"unterminated}`,
		`not json`,
		`[1,2]`,
		`{"value":"x"} trailing`,
		`{"key":"k"}`,
		`{"value":"a","payload":"b"}`,
		`{"partition":-2,"value":"v"}`,
		`{"partition":2147483648,"value":"v"}`,
		`{"partition":1.5,"value":"v"}`,
		`{"timestamp":-1,"value":"v"}`,
		`{"timestamp":99999999999999999999,"value":"v"}`,
		`{"topic":1,"value":"v"}`,
		`{"headers":"x","value":"v"}`,
		`{"headers":["a"],"value":"v"}`,
		`{"headers":[{"value":"1"}],"value":"v"}`,
		`{"headers":{"a":1,},"value":"v"}`,
		`{"value":"bad \x escape"}`,
		"{\"value\":\"raw\x01control\"}",
		`{"value":01}`,
		`{"value":tru}`,
		`{"value":` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `}`,
		`{"value":"ok2"}`,
	}
	recs := jsonOf(t, strings.Join(lines, "\n"))
	require.Len(t, recs, len(lines))
	assert.Equal(t, "ok1", string(recs[0].Value))
	assert.Equal(t, "ok2", string(recs[len(lines)-1].Value))
	for i := 1; i < len(lines)-1; i++ {
		assert.ErrorIs(t, recs[i].Err, ErrMalformedJSON, "line %d %q", i+1, lines[i])
		assert.Equal(t, int64(i+1), recs[i].Number)
		assert.Contains(t, recs[i].Err.Error(), "at byte ")
	}
	assert.Contains(t, recs[1].Err.Error(), "unterminated string")
	assert.Contains(t, recs[5].Err.Error(), `no "value"`)
	assert.Contains(t, recs[21].Err.Error(), "nested more than")
}

func TestJSONEmptyLinesSkippedButCounted(t *testing.T) {
	recs := jsonOf(t, "\n  \n{\"value\":\"a\"}\n\r\n{\"value\":\"b\"}\n")
	assert.Equal(t, []string{"a", "b"}, values(recs))
	assert.Equal(t, []int64{3, 5}, numbers(recs))
}

func TestJSONMaxRecordBytes(t *testing.T) {
	recs := jsonOf(t, `{"value":"12345"}`+"\n"+`{"value":"123456"}`+"\n", "--max-record-bytes", "17")
	require.Len(t, recs, 2)
	assert.Equal(t, "12345", string(recs[0].Value))
	assert.ErrorIs(t, recs[1].Err, ErrRecordTooLarge)
}

// TestJSONKcatEnvelopes reads real kcat -J output (kcat 1.7.1 consuming from
// a kfake cluster): keys and values byte for byte, including bytes that are
// not UTF-8, the flat header list, null keys and the ts timestamp.
func TestJSONKcatEnvelopes(t *testing.T) {
	data, err := os.ReadFile("testdata/kcat-J.jsonl")
	require.NoError(t, err)
	opts := testConfig(t, "-f", "json")
	recs := readAll(t, newJSONReader(opts, "kcat", strings.NewReader(string(data)), inputBufferSize))
	require.Len(t, recs, 6)
	for _, r := range recs {
		require.NoError(t, r.Err)
		assert.Equal(t, "src", r.Topic)
		assert.Positive(t, r.Timestamp)
	}
	assert.Equal(t, int32(0), recs[0].Partition)
	assert.Nil(t, recs[0].Key)
	assert.Equal(t, "plain", string(recs[0].Value))
	assert.Equal(t, int64(1796039338585), recs[0].Timestamp)

	assert.Equal(t, int32(1), recs[1].Partition)
	assert.Equal(t, "k1", string(recs[1].Key))
	assert.Equal(t, []protocol.Header{h("h1", "x"), h("h2", "y")}, recs[1].Headers)
	assert.Equal(t, `{"a": 1}`, string(recs[2].Value), "a JSON-looking string stays the string")
	assertBytes(t, ptr(""), recs[3].Key)

	assert.Equal(t, "bin\x01\xff\xfe\"q\"\\", string(recs[4].Value))
	assert.Equal(t, []protocol.Header{h("e", "")}, recs[4].Headers)
	assert.Equal(t, "null", string(recs[5].Value), `the string "null" is not null`)
}

func TestJSONNextAllocations(t *testing.T) {
	line := `{"topic":"src","partition":1,"offset":0,"tstype":"create","ts":1,"broker":0,"key":"k1","payload":"v1"}` + "\n"
	opts := testConfig(t, "-f", "json")
	r := newJSONReader(opts, "-", &repeatReader{data: []byte(line)}, 4096)
	var rec Record
	allocs := testing.AllocsPerRun(5000, func() {
		if err := r.Next(&rec); err != nil || rec.Err != nil {
			t.Fatal(err, rec.Err)
		}
	})
	assert.Zero(t, allocs, "a record without headers is parsed without allocating")
	assert.Equal(t, "v1", string(rec.Value))
}

// TestJSONTimestampZero: "timestamp": 0 is the timestamp 0 (1970-01-01),
// not "none"; null and a missing timestamp are none.
func TestJSONTimestampZero(t *testing.T) {
	opts := testConfig(t, "-f", "json")
	rr := newJSONReader(opts, "-", strings.NewReader(`{"value":"a","timestamp":0}`+"\n"+`{"value":"b","timestamp":null}`+"\n"+`{"value":"c"}`+"\n"), inputBufferSize)
	var rec Record
	require.NoError(t, rr.Next(&rec))
	require.NoError(t, rec.Err)
	assert.False(t, rec.Timestamp.IsZero(), "0 is a timestamp")
	assert.Equal(t, int64(0), rec.Timestamp.UnixMilli())
	for _, v := range []string{"b", "c"} {
		require.NoError(t, rr.Next(&rec))
		require.NoError(t, rec.Err)
		assert.Equal(t, v, string(rec.Value))
		assert.True(t, rec.Timestamp.IsZero(), "record %s: no timestamp", v)
	}
}
