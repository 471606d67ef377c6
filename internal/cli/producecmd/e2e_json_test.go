package producecmd_test

import (
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/kafkatest"
)

// TestE2EJSONFieldForms produces one JSON record per field form and checks
// what kgo reads back.
func TestE2EJSONFieldForms(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	in := strings.Join([]string{
		`{"topic":"u","partition":3,"key":"k1","value":"full","headers":{"h1":"a","h2":"b"},"timestamp":1700000000001}`,
		`{"key":null,"value":null,"partition":1}`,
		`{"payload":"from payload","partition":1}`,
		`{"value":{"a": 1, "b": [1, 2, {"c" : null}]},"partition":1}`,
		`{"value":42,"key":12.5,"partition":1}`,
		`{"value":true,"key":false,"partition":1}`,
		`{"value":"list headers","partition":1,"headers":[{"key":"x","value":"1"},{"key":"x","value":"2"},{"key":"n","value":null}]}`,
		`{"value":"flat headers","partition":1,"headers":["p","1","q","2"]}`,
		`{"value":"repeated headers","partition":1,"headers":{"r":["1","2"]}}`,
		`{"value":"esc \u00e9\n\t\"\\\/ \ud83d\ude00","key":"","partition":1}`,
		`{"value":"","partition":1,"unknown":{"nested":[1,2]},"offset":7,"tstype":"create"}`,
		``,
		`   `,
		`{"value":"after blanks","partition":1}`,
	}, "\n") + "\n"
	res := produceTo(t, c, strings.NewReader(in), "--config", defaultTopicConfig(t, "t"), "-f", "json", "-H", "cli=yes", "-o", "%s:%n %t/%p@%o\n")
	require.Equal(t, 0, res.Code, res.Stderr)
	reports := kafkatest.Lines(res.Stdout)
	require.Len(t, reports, 12, res.Stdout)
	// Reports come as partitions complete: no order across partitions.
	has := func(prefix string) bool {
		return slices.ContainsFunc(reports, func(r string) bool { return strings.HasPrefix(r, prefix) })
	}
	assert.True(t, has("-:1 u/3@"), res.Stdout)
	assert.True(t, has("-:14 t/1@"), "blank lines keep their numbers: %s", res.Stdout)
	assert.False(t, has("-:12 ") || has("-:13 "), "no report for a blank line: %s", res.Stdout)

	u := kafkatest.ConsumeExactly(t, c, "u", 1)[0]
	assert.EqualValues(t, 3, u.Partition)
	assert.Equal(t, "k1", string(u.Key))
	assert.Equal(t, "full", string(u.Value))
	assert.Equal(t, []string{"h1=a", "h2=b", "cli=yes"}, headerList(u))
	assert.EqualValues(t, 1700000000001, u.Timestamp.UnixMilli())

	recs := kafkatest.ByOffset(kafkatest.ConsumeExactly(t, c, "t", 11))
	want := []struct {
		key, value []byte
		headers    []string
	}{
		{nil, nil, nil},
		{nil, []byte("from payload"), nil},
		{nil, []byte(`{"a":1,"b":[1,2,{"c":null}]}`), nil},
		{[]byte("12.5"), []byte("42"), nil},
		{[]byte("false"), []byte("true"), nil},
		{nil, []byte("list headers"), []string{"x=1", "x=2", "n="}},
		{nil, []byte("flat headers"), []string{"p=1", "q=2"}},
		{nil, []byte("repeated headers"), []string{"r=1", "r=2"}},
		{[]byte{}, []byte("esc é\n\t\"\\/ 😀"), nil},
		{nil, []byte{}, nil},
		{nil, []byte("after blanks"), nil},
	}
	for i, w := range want {
		r := recs[i]
		assert.EqualValues(t, 1, r.Partition)
		assertNullable(t, w.key, r.Key, "key of record "+strconv.Itoa(i))
		assertNullable(t, w.value, r.Value, "value of record "+strconv.Itoa(i))
		assert.Equal(t, append(w.headers, "cli=yes"), headerList(r), "headers of %q", r.Value)
	}
	n := recs[5].Headers[2]
	assert.Nil(t, n.Value, "a null header value stays null")
}

// TestE2EJSONKcatEnvelopes produces real kcat -J output and checks that each
// record is copied: topic, partition, key, payload, headers and timestamp,
// byte for byte (kcat writes bytes that are not UTF-8 as they are).
func TestE2EJSONKcatEnvelopes(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	data, err := os.ReadFile("../input/testdata/kcat-J.jsonl")
	require.NoError(t, err)
	res := produceTo(t, c, bytes.NewReader(data), "-f", "json", "-o", "json")
	require.Equal(t, 0, res.Code, res.Stderr)
	envs := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	reps := kafkatest.ParseJSONReports(t, res.Stdout)
	require.Len(t, reps, len(envs))

	at := recordAt(kafkatest.ConsumeExactly(t, c, "src", len(envs)))
	for _, rep := range reps {
		require.Nil(t, rep.Error)
		env := decodeKcatEnvelope(t, envs[rep.Record-1])
		r := at[rep.Topic+"/"+strconv.Itoa(int(rep.Partition))+"@"+strconv.FormatInt(rep.Offset, 10)]
		require.NotNil(t, r, "report %+v", rep)
		assert.Equal(t, env.topic, r.Topic)
		assert.Equal(t, env.partition, r.Partition)
		assertNullable(t, env.key, r.Key, "key of line "+strconv.FormatInt(rep.Record, 10))
		assertNullable(t, env.payload, r.Value, "payload of line "+strconv.FormatInt(rep.Record, 10))
		assert.Equal(t, env.ts, r.Timestamp.UnixMilli())
		assert.Equal(t, env.headers, headerList(r))
	}
}

// kcatEnvelope is what one kcat -J line says about its record.
type kcatEnvelope struct {
	topic        string
	partition    int32
	ts           int64
	key, payload []byte
	headers      []string
}

// decodeKcatEnvelope decodes one kcat -J line. Its strings are decoded by
// rawJSONString, which keeps bytes that are not UTF-8 (encoding/json would
// replace them).
func decodeKcatEnvelope(t testing.TB, line []byte) kcatEnvelope {
	t.Helper()
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(line, &m), "line %q", line)
	var env kcatEnvelope
	require.NoError(t, json.Unmarshal(m["topic"], &env.topic))
	require.NoError(t, json.Unmarshal(m["partition"], &env.partition))
	require.NoError(t, json.Unmarshal(m["ts"], &env.ts))
	env.key = rawJSONString(t, m["key"])
	env.payload = rawJSONString(t, m["payload"])
	if h, ok := m["headers"]; ok {
		var flat []json.RawMessage
		require.NoError(t, json.Unmarshal(h, &flat))
		require.Zero(t, len(flat)%2)
		for i := 0; i < len(flat); i += 2 {
			env.headers = append(env.headers, string(rawJSONString(t, flat[i]))+"="+string(rawJSONString(t, flat[i+1])))
		}
	} else {
		env.headers = []string{}
	}
	return env
}

// rawJSONString decodes a JSON string (nil for null), copying bytes that are
// not escapes as they are.
func rawJSONString(t testing.TB, raw json.RawMessage) []byte {
	t.Helper()
	if string(raw) == "null" {
		return nil
	}
	require.True(t, len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"', "not a string: %s", raw)
	s := raw[1 : len(raw)-1]
	out := []byte{}
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			out = append(out, s[i])
			continue
		}
		i++
		switch s[i] {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r := hex4(t, s[i+1:i+5])
			i += 4
			if utf16.IsSurrogate(r) && i+6 < len(s) && s[i+1] == '\\' && s[i+2] == 'u' {
				r = utf16.DecodeRune(r, hex4(t, s[i+3:i+7]))
				i += 6
			}
			out = utf8.AppendRune(out, r)
		default: // " \ /
			out = append(out, s[i])
		}
	}
	return out
}

// hex4 parses four hex digits.
func hex4(t testing.TB, b []byte) rune {
	t.Helper()
	v, err := strconv.ParseUint(string(b), 16, 16)
	require.NoError(t, err)
	return rune(v)
}

// TestE2EJSONMalformedLinesFailAlone checks that a malformed record is
// reported with its position while the records around it are produced,
// and that a record naming no topic fails alone when --topic is not set.
func TestE2EJSONMalformedLinesFailAlone(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	in := strings.Join([]string{
		`{"topic":"t","value":"one"}`,
		`{"topic":"t","value":"two"`,
		``,
		`not json at all`,
		`{"topic":"t","key":"k"}`,
		`{"value":"no topic"}`,
		`{"topic":"t","value":"three"} trailing`,
		`{"topic":"t","partition":"x","value":"v"}`,
		`{"topic":"t","value":"four"}`,
	}, "\n")
	res := produceTo(t, c, strings.NewReader(in), "-f", "json")
	require.Equal(t, 1, res.Code, res.Stderr)
	require.Len(t, kafkatest.Lines(res.Stdout), 2, res.Stdout)
	errs := kafkatest.Lines(res.Stderr)
	require.Len(t, errs, 7, res.Stderr)
	for i, n := range []int{2, 4, 5, 6, 7, 8} {
		assert.Regexp(t, `^error: -:`+strconv.Itoa(n)+`: /-1: \S`, errs[i])
	}
	assert.Contains(t, errs[3], "topic")
	assert.Equal(t, "2 delivered, 6 failed", errs[6])
	recs := kafkatest.ByValue(t, kafkatest.ConsumeExactly(t, c, "t", 2))
	assert.Contains(t, recs, "one")
	assert.Contains(t, recs, "four")
}

// TestE2EJSONTimestampZero: a record's "timestamp": 0 is stored as the
// timestamp 0 (1970-01-01), not replaced by the time it was read; null or
// no timestamp is the time it was read.
func TestE2EJSONTimestampZero(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	before := time.Now().Add(-time.Second)
	in := `{"value":"zero","timestamp":0}` + "\n" + `{"value":"null","timestamp":null}` + "\n" + `{"value":"none"}` + "\n"
	res := produceTo(t, c, strings.NewReader(in), "-t", "t", "-p", "0", "-f", "json", "-o", "json")
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	reps := kafkatest.ParseJSONReports(t, res.Stdout)
	require.Len(t, reps, 3)
	assert.Zero(t, reps[0].Timestamp, "the report shows the record's timestamp")
	recs := kafkatest.ByValue(t, kafkatest.ConsumeExactly(t, c, "t", 3))
	assert.Zero(t, recs["zero"].Timestamp.UnixMilli())
	for _, v := range []string{"null", "none"} {
		assert.False(t, recs[v].Timestamp.Before(before), "%s: the time it was read, not %v", v, recs[v].Timestamp)
	}
}
