package schema

import (
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/hamba/avro/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// avroPayload encodes a JSON text with an Avro schema.
func avroPayload(t *testing.T, schema, text string) ([]byte, error) {
	t.Helper()
	c, err := compileText(FormatAvro, schema, nil, "")
	require.NoError(t, err)
	return c.payload.appendPayload(nil, []byte(text))
}

// decodeAvro decodes Avro binary with hamba/avro, an implementation of
// its own.
func decodeAvro(t *testing.T, schema string, b []byte) any {
	t.Helper()
	s, err := avro.ParseWithCache(schema, "", &avro.SchemaCache{})
	require.NoError(t, err)
	var v any
	require.NoError(t, avro.Unmarshal(s, b, &v))
	return v
}

const orderSchema = `{"type":"record","name":"Order","namespace":"shop","fields":[
 {"name":"id","type":"long"},
 {"name":"customer","type":{"type":"record","name":"Customer","fields":[{"name":"id","type":"long"},{"name":"name","type":"string"}]}},
 {"name":"note","type":["null","string"],"default":null},
 {"name":"qty","type":"int","default":1},
 {"name":"price","type":"double"},
 {"name":"tags","type":{"type":"array","items":"string"},"default":[]},
 {"name":"attrs","type":{"type":"map","values":"long"},"default":{}},
 {"name":"state","type":{"type":"enum","name":"State","symbols":["NEW","PAID"]},"default":"NEW"}
]}`

func TestAvroPlainAndStrictJSON(t *testing.T) {
	want := map[string]any{"id": int64(7), "customer": map[string]any{"id": int64(3), "name": "ann"}, "note": "hi",
		"qty": 2, "price": 9.5, "tags": []any{"a", "b"}, "attrs": map[string]any{"x": int64(1)}, "state": "PAID"}
	for name, text := range map[string]string{
		"plain":      `{"id":7,"customer":{"id":3,"name":"ann"},"note":"hi","qty":2,"price":9.5,"tags":["a","b"],"attrs":{"x":1},"state":"PAID"}`,
		"strict":     `{"id":7,"customer":{"id":3,"name":"ann"},"note":{"string":"hi"},"qty":2,"price":9.5,"tags":["a","b"],"attrs":{"x":1},"state":"PAID"}`,
		"reordered":  `{"state":"PAID","attrs":{"x":1},"tags":["a","b"],"price":9.5,"qty":2,"note":"hi","customer":{"name":"ann","id":3},"id":7}`,
		"whitespace": " {\"id\" : 7 , \"customer\":{ \"id\":3,\"name\":\"ann\"},\"note\":\"h\\u0069\",\"qty\":2,\"price\":9.5,\"tags\":[\"a\", \"b\"],\"attrs\":{\"x\":1},\"state\":\"PAID\"}\n",
	} {
		t.Run(name, func(t *testing.T) {
			b, err := avroPayload(t, orderSchema, text)
			require.NoError(t, err)
			assert.Equal(t, want, decodeAvro(t, orderSchema, b))
		})
	}
	t.Run("defaults", func(t *testing.T) {
		b, err := avroPayload(t, orderSchema, `{"id":1,"customer":{"id":2,"name":""},"price":0}`)
		require.NoError(t, err)
		assert.Equal(t, map[string]any{"id": int64(1), "customer": map[string]any{"id": int64(2), "name": ""}, "note": nil,
			"qty": 1, "price": 0.0, "tags": []any{}, "attrs": map[string]any{}, "state": "NEW"}, decodeAvro(t, orderSchema, b))
	})
}

func TestAvroErrorsNameTheField(t *testing.T) {
	for _, tc := range []struct{ name, text, path, msg string }{
		{"wrong type", `{"id":7,"customer":{"id":"x","name":"a"},"price":1}`, ".customer.id", `expected long, got string "x"`},
		{"missing", `{"id":7,"customer":{"id":1},"price":1}`, ".customer.name", "missing (string has no default)"},
		{"unknown", `{"id":7,"customer":{"id":1,"name":"a"},"price":1,"extra":1}`, ".extra", "not in record shop.Order"},
		{"twice", `{"id":7,"id":8,"customer":{"id":1,"name":"a"},"price":1}`, ".id", "given twice"},
		{"array item", `{"id":7,"customer":{"id":1,"name":"a"},"price":1,"tags":["a",2]}`, ".tags[1]", "expected string, got number 2"},
		{"map value", `{"id":7,"customer":{"id":1,"name":"a"},"price":1,"attrs":{"k":"v"}}`, `.attrs["k"]`, `expected long, got string "v"`},
		{"enum", `{"id":7,"customer":{"id":1,"name":"a"},"price":1,"state":"GONE"}`, ".state", `"GONE" is not a symbol of enum shop.State`},
		{"union", `{"id":7,"customer":{"id":1,"name":"a"},"price":1,"note":5}`, ".note", "expected one of [null, string], got number 5"},
		{"fraction", `{"id":7.5,"customer":{"id":1,"name":"a"},"price":1}`, ".id", "not an integer"},
		{"int range", `{"id":7,"customer":{"id":1,"name":"a"},"price":1,"qty":3000000000}`, ".qty", "out of range"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := avroPayload(t, orderSchema, tc.text)
			var fe *FieldError
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, tc.path, fe.Path)
			assert.Contains(t, fe.Msg, tc.msg)
			assert.True(t, errors.Is(err, ErrMismatch))
		})
	}
	t.Run("syntax", func(t *testing.T) {
		_, err := avroPayload(t, orderSchema, `{"id":7,`)
		assert.ErrorIs(t, err, ErrSyntax)
		_, err = avroPayload(t, `"long"`, `1 2`)
		assert.ErrorIs(t, err, ErrSyntax)
	})
}

// inner and strMap are union values as hamba/avro decodes them: wrapped
// in their branch's name.
func inner(v int) any { return map[string]any{"x.Inner": map[string]any{"v": v}} }

func strMap(k, v string) any { return map[string]any{"map": map[string]any{k: v}} }

func TestAvroUnions(t *testing.T) {
	schema := `{"type":"record","name":"U","fields":[
	 {"name":"a","type":["null","long","string"]},
	 {"name":"b","type":["null",{"type":"record","name":"Inner","namespace":"x","fields":[{"name":"v","type":"int"}]}]},
	 {"name":"c","type":["null",{"type":"map","values":"string"}]}]}`
	for _, tc := range []struct {
		text string
		want map[string]any
	}{
		{`{"a":5,"b":{"v":1},"c":{"k":"v"}}`, map[string]any{"a": int64(5), "b": inner(1), "c": strMap("k", "v")}},
		{`{"a":"s","b":{"x.Inner":{"v":2}},"c":{"map":{"string":"v"}}}`, map[string]any{"a": "s", "b": inner(2), "c": strMap("string", "v")}},
		{`{"a":{"long":6},"b":{"Inner":{"v":3}},"c":null}`, map[string]any{"a": int64(6), "b": inner(3), "c": nil}},
		{`{"a":null,"b":null,"c":{"a":"1","b":"2"}}`, map[string]any{"a": nil, "b": nil, "c": map[string]any{"map": map[string]any{"a": "1", "b": "2"}}}},
	} {
		b, err := avroPayload(t, schema, tc.text)
		require.NoError(t, err, tc.text)
		assert.Equal(t, tc.want, decodeAvro(t, schema, b), tc.text)
	}
	_, err := avroPayload(t, schema, `{"a":1,"b":{"v":"x"},"c":null}`)
	var fe *FieldError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, ".b.v", fe.Path, "a single candidate branch reports its own error")
}

func TestAvroLogicalTypes(t *testing.T) {
	schema := `{"type":"record","name":"L","fields":[
	 {"name":"d","type":{"type":"int","logicalType":"date"}},
	 {"name":"tm","type":{"type":"int","logicalType":"time-millis"}},
	 {"name":"tu","type":{"type":"long","logicalType":"time-micros"}},
	 {"name":"ts","type":{"type":"long","logicalType":"timestamp-millis"}},
	 {"name":"tsu","type":{"type":"long","logicalType":"timestamp-micros"}},
	 {"name":"u","type":{"type":"string","logicalType":"uuid"}},
	 {"name":"dec","type":{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}},
	 {"name":"fdec","type":{"type":"fixed","name":"F","size":4,"logicalType":"decimal","precision":9,"scale":2}},
	 {"name":"raw","type":"bytes"},
	 {"name":"fx","type":{"type":"fixed","name":"Two","size":2}}]}`
	text := `{"d":"2024-01-31","tm":"13:45:00.250","tu":"00:00:01.000002","ts":"2024-01-31T13:45:00.250Z","tsu":1700000000000001,
	 "u":"123e4567-e89b-12d3-a456-426614174000","dec":"-12.34","fdec":5.5,"raw":"\u0000\u00ffA","fx":"\u0001\u0002"}`
	b, err := avroPayload(t, schema, text)
	require.NoError(t, err)
	v := decodeAvro(t, schema, b).(map[string]any)
	assert.Equal(t, time.Date(2024, 1, 31, 0, 0, 0, 0, time.UTC), v["d"])
	assert.Equal(t, 13*time.Hour+45*time.Minute+250*time.Millisecond, v["tm"])
	assert.Equal(t, time.Second+2*time.Microsecond, v["tu"])
	assert.Equal(t, time.Date(2024, 1, 31, 13, 45, 0, 250e6, time.UTC), v["ts"].(time.Time).UTC())
	assert.Equal(t, time.UnixMicro(1700000000000001).UTC(), v["tsu"].(time.Time).UTC())
	assert.Equal(t, "123e4567-e89b-12d3-a456-426614174000", v["u"])
	assert.Equal(t, big.NewRat(-1234, 100), v["dec"])
	assert.Equal(t, big.NewRat(550, 100), v["fdec"])
	assert.Equal(t, []byte{0, 0xff, 'A'}, v["raw"])
	assert.Equal(t, [2]byte{1, 2}, v["fx"])

	for _, bad := range []struct{ text, path string }{
		{`"2024-13-01"`, "d"}, {`"not-a-uuid"`, "u"}, {`"1.234"`, "dec"}, {`"\u0100"`, "raw"}, {`"\u0001"`, "fx"},
	} {
		_, err := avroPayload(t, schema, strings.Replace(text, `"`+bad.path+`":`, `"`+bad.path+`":`+bad.text+`,"ignored":`, 1))
		var fe *FieldError
		require.ErrorAs(t, err, &fe, bad.text)
		assert.Equal(t, "."+bad.path, fe.Path, bad.text)
	}
}

func TestAvroRecursiveAndPrimitive(t *testing.T) {
	schema := `{"type":"record","name":"Node","fields":[{"name":"v","type":"int"},{"name":"next","type":["null","Node"],"default":null}]}`
	b, err := avroPayload(t, schema, `{"v":1,"next":{"v":2,"next":{"Node":{"v":3}}}}`)
	require.NoError(t, err)
	node := func(v int, next any) any { return map[string]any{"Node": map[string]any{"v": v, "next": next}} }
	assert.Equal(t, map[string]any{"v": 1, "next": node(2, node(3, nil))}, decodeAvro(t, schema, b))
	b, err = avroPayload(t, `"string"`, `"x\ny"`)
	require.NoError(t, err)
	assert.Equal(t, "x\ny", decodeAvro(t, `"string"`, b))
	b, err = avroPayload(t, `{"type":"array","items":"float"}`, `[1.5,2]`)
	require.NoError(t, err)
	assert.Equal(t, []any{float32(1.5), float32(2)}, decodeAvro(t, `{"type":"array","items":"float"}`, b))
}

func TestAvroEncodeAllocatesNothing(t *testing.T) {
	c, err := compileText(FormatAvro, orderSchema, nil, "")
	require.NoError(t, err)
	text := []byte(`{"id":7,"customer":{"name":"ann","id":3},"note":"hi","qty":2,"price":9.5,"tags":["a","b"],"attrs":{"x":1},"state":"PAID"}`)
	buf := make([]byte, 0, 256)
	_, err = c.payload.appendPayload(buf, text) // warm the scratch
	require.NoError(t, err)
	allocs := testing.AllocsPerRun(100, func() {
		_, _ = c.payload.appendPayload(buf[:0], text)
	})
	assert.Zero(t, allocs)
}

func TestAvroSchemaErrors(t *testing.T) {
	for schema, want := range map[string]string{
		`{"type":"record","name":"R","fields":[{"name":"a","type":"strin"}]}`:                         `unknown type "strin"`,
		`{"type":"record","name":"1R","fields":[]}`:                                                   `invalid name "1R"`,
		`{"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"a","type":"int"}]}`: "field a is defined twice",
		`{"type":"record","name":"R","fields":[{"name":"a","type":"int","default":"x"}]}`:             "default of field a",
		`{"type":"record","name":"R","fields":[{"name":"a","type":["null","int"],"default":1}]}`:      "first branch null",
		`["int","int"]`: "union has int twice",
		`{"type":"enum","name":"E","symbols":["A","A"]}`: "symbol A twice",
		`{"type":"fixed","name":"F"}`:                    "needs a size",
		`{"type":"record","name":"R"}`:                   "needs fields",
		`{"type":"array"}`:                               "array needs items",
		`[1]`:                                            "not an Avro schema",
		`{"type":"record","name":"R","fields":[]} {}`:    "unexpected data after the schema",
		`{"type":"record","name":"R","fields":[{"name":"r","type":{"type":"record","name":"R","fields":[]}}]}`: "R is defined twice",
	} {
		_, err := compileText(FormatAvro, schema, nil, "")
		require.Error(t, err, schema)
		assert.ErrorIs(t, err, ErrSchema)
		assert.Contains(t, err.Error(), want, schema)
	}
}

func TestAvroNamespaces(t *testing.T) {
	schema := `{"type":"record","name":"Outer","namespace":"a.b","fields":[
	 {"name":"in","type":{"type":"record","name":"Inner","fields":[{"name":"e","type":{"type":"enum","name":"E","namespace":"c","symbols":["X"]}}]}},
	 {"name":"again","type":"Inner"},{"name":"full","type":"a.b.Inner"},{"name":"e2","type":"c.E"},
	 {"name":"bad","type":{"type":"string","logicalType":"nope"},"default":"ok"},
	 {"name":"u","type":["null","a.b.Inner","c.E"],"default":null}]}`
	b, err := avroPayload(t, schema, `{"in":{"e":"X"},"again":{"e":"X"},"full":{"e":"X"},"e2":"X","u":{"E":"X"}}`)
	require.NoError(t, err)
	v := decodeAvro(t, schema, b).(map[string]any)
	assert.Equal(t, "ok", v["bad"], "an unknown logical type is its underlying type")
	assert.Equal(t, map[string]any{"c.E": "X"}, v["u"])
}
