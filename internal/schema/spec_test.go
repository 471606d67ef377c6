package schema

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestDetectFormat: without a format given, the content decides, and the
// file's extension only for text that is neither JSON nor a .proto file. A
// JSON Schema keyword counts only as a key: a document holding only $ref
// or $defs is JSON Schema, an Avro field named like one stays Avro.
func TestDetectFormat(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       Format
	}{
		{"s.avsc", `{"type":"record","name":"R","fields":[{"name":"s","type":"string"}]}`, FormatAvro},
		{"s.json", `{"type":"record","name":"R","fields":[{"name":"s","type":"string"}]}`, FormatAvro},
		{"s.json", `"string"`, FormatAvro},
		{"s.json", `["null","string"]`, FormatAvro},
		{"s.json", `{"type":"string"}`, FormatAvro},
		{"s.json", `{"type":"array","items":"long"}`, FormatAvro},
		{"s.avsc", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}`, FormatJSON},
		{"", `{"$id":"https://example.com/s"}`, FormatJSON},
		{"", `{"properties":{"a":{}}}`, FormatJSON},
		{"", `{"definitions":{"a":{}}}`, FormatJSON},
		{"", `{"$defs":{"a":{"type":"string"}}}`, FormatJSON},
		{"", `{"$ref":"#"}`, FormatJSON},
		{"s.avsc", ` { "$ref" : "#/x", "x": {"type":"string"} }`, FormatJSON},
		{"", `{"type":"object"}`, FormatJSON},
		{"", `{"type": "integer"}`, FormatJSON},
		{"", "{\n  \"type\" : \"number\"\n}", FormatJSON},
		{"", `{"type":"array","items":{"type":"object"}}`, FormatJSON},
		{"", `{"type":"record","name":"R","fields":[{"name":"properties","type":"string"},{"name":"d","type":"string","default":"$ref"}]}`, FormatAvro},
		{"s.json", "syntax = \"proto3\";\nmessage M {}\n", FormatProtobuf},
		{"s.txt", "// c\n\npackage shop;\n", FormatProtobuf},
		{"s.proto", "M {}", FormatProtobuf},
		{"s.json", "true", FormatJSON},
		{"s.avro", "true", FormatAvro},
		{"s", "true", FormatAvro},
	} {
		assert.Equal(t, tc.want, detectFormat(FormatAuto, tc.name, []byte(tc.text)), "%s: %s", tc.name, tc.text)
	}
	assert.Equal(t, FormatProtobuf, detectFormat(FormatProtobuf, "s.json", []byte(`{"$ref":"#"}`)), "the format given wins")
}
