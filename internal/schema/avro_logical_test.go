package schema

import (
	"math/big"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// logicalSchema has a field of every logical type, decimals as bytes and
// as fixed.
const logicalSchema = `{"type":"record","name":"L","fields":[
 {"name":"d","type":{"type":"int","logicalType":"date"}},
 {"name":"tm","type":{"type":"int","logicalType":"time-millis"}},
 {"name":"tu","type":{"type":"long","logicalType":"time-micros"}},
 {"name":"ts","type":{"type":"long","logicalType":"timestamp-millis"}},
 {"name":"tsu","type":{"type":"long","logicalType":"timestamp-micros"}},
 {"name":"lts","type":{"type":"long","logicalType":"local-timestamp-millis"}},
 {"name":"ltsu","type":{"type":"long","logicalType":"local-timestamp-micros"}},
 {"name":"u","type":{"type":"string","logicalType":"uuid"}},
 {"name":"dec","type":{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}},
 {"name":"fdec","type":{"type":"fixed","name":"F","size":4,"logicalType":"decimal","precision":9,"scale":2}},
 {"name":"od","type":["null",{"type":"int","logicalType":"date"}]}]}`

// TestAvroLogicalTypesStrictAndPlainJSON: each logical type written as
// Avro's JSON encoding writes it (kafka-avro-console-producer: numbers,
// decimals as their two's complement bytes in code points, union values
// wrapped) and as plain JSON (dates, times and timestamps as text,
// decimals as numbers or digit strings) encodes to the same binary, which
// hamba/avro decodes to the values meant.
func TestAvroLogicalTypesStrictAndPlainJSON(t *testing.T) {
	strict := `{"d":19753,"tm":49500250,"tu":1000002,"ts":1706708700250,"tsu":1700000000000001,"lts":1706708700250,"ltsu":1706708700250001,
	 "u":"123e4567-e89b-12d3-a456-426614174000","dec":"\u00fb\u002e","fdec":"\u0000\u0000\u0002\u0026","od":{"int":19753}}`
	plain := `{"d":"2024-01-31","tm":"13:45:00.250","tu":"00:00:01.000002","ts":"2024-01-31T13:45:00.250Z","tsu":"2023-11-14T22:13:20.000001Z",
	 "lts":"2024-01-31T13:45:00.250","ltsu":"2024-01-31T13:45:00.250001","u":"123e4567-e89b-12d3-a456-426614174000","dec":-12.34,"fdec":"5.50",
	 "od":"2024-01-31"}`
	s, err := avroPayload(t, logicalSchema, strict)
	require.NoError(t, err)
	p, err := avroPayload(t, logicalSchema, plain)
	require.NoError(t, err)
	assert.Equal(t, s, p, "the same binary from either JSON")

	v := decodeAvro(t, logicalSchema, s).(map[string]any)
	day := time.Date(2024, 1, 31, 0, 0, 0, 0, time.UTC)
	at := time.Date(2024, 1, 31, 13, 45, 0, 250e6, time.UTC)
	assert.Equal(t, day, v["d"])
	assert.Equal(t, 13*time.Hour+45*time.Minute+250*time.Millisecond, v["tm"])
	assert.Equal(t, time.Second+2*time.Microsecond, v["tu"])
	assert.Equal(t, at, v["ts"].(time.Time).UTC())
	assert.Equal(t, time.UnixMicro(1700000000000001).UTC(), v["tsu"].(time.Time).UTC())
	assert.Equal(t, at, v["lts"].(time.Time).UTC())
	assert.Equal(t, at.Add(time.Microsecond), v["ltsu"].(time.Time).UTC())
	assert.Equal(t, "123e4567-e89b-12d3-a456-426614174000", v["u"])
	assert.Equal(t, big.NewRat(-1234, 100), v["dec"])
	assert.Equal(t, big.NewRat(550, 100), v["fdec"])
	assert.Equal(t, day, v["od"], "a union of null and a date")
}
