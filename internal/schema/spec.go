package schema

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/twmb/franz-go/pkg/sr"
)

// Format is a schema format, as the registry names it.
type Format string

// The schema formats. FormatAuto lets the schema's content decide.
const (
	FormatAuto     Format = ""
	FormatAvro     Format = "AVRO"
	FormatProtobuf Format = "PROTOBUF"
	FormatJSON     Format = "JSON" // JSON Schema
)

// srType is the format as the registry client names it.
func (f Format) srType() sr.SchemaType {
	switch f {
	case FormatProtobuf:
		return sr.TypeProtobuf
	case FormatJSON:
		return sr.TypeJSON
	}
	return sr.TypeAvro
}

// ParseFormat reads a format name: avro, protobuf (proto) or json
// (json-schema, jsonschema), any case; "" or auto is FormatAuto.
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "auto":
		return FormatAuto, nil
	case "avro":
		return FormatAvro, nil
	case "protobuf", "proto":
		return FormatProtobuf, nil
	case "json", "json-schema", "jsonschema":
		return FormatJSON, nil
	}
	return FormatAuto, schemaErrorf("unknown schema format %q: want avro, protobuf or json-schema", s)
}

// String names the format as the help does.
func (f Format) String() string {
	switch f {
	case FormatAvro:
		return "Avro"
	case FormatProtobuf:
		return "Protobuf"
	case FormatJSON:
		return "JSON Schema"
	}
	return "auto"
}

// Role says whether a schema is the key's or the value's.
type Role int

// The roles.
const (
	RoleValue Role = iota
	RoleKey
)

// String is "value" or "key".
func (r Role) String() string {
	if r == RoleKey {
		return "key"
	}
	return "value"
}

// Spec says which schema the key or the value of every record uses. Set
// one of File, Text, ID or TopicLatest.
type Spec struct {
	// Role is RoleValue or RoleKey.
	Role Role
	// File is a schema file (.avsc, .proto, .json); Text a schema given
	// inline. Format, when not FormatAuto, says what they hold.
	File, Text string
	Format     Format
	// ID is an existing schema's id (> 0).
	ID int
	// TopicLatest takes the latest version of the TopicNameStrategy
	// subject (<topic>-value or <topic>-key).
	TopicLatest bool
	// MessageType is the Protobuf message's full name; "" is the file's
	// first message.
	MessageType string
	// ProtoPaths are the directories Protobuf imports are found in (the
	// well-known types need none).
	ProtoPaths []string
	// Strategy names the subject of a File or Text schema.
	Strategy Strategy
	// AutoRegister registers a File or Text schema (else it is looked up
	// and must exist).
	AutoRegister bool
	// UseLatest encodes with the subject's latest schema instead.
	UseLatest bool
}

// Name is the schema option for messages: "--value-schema FILE" and the
// like.
func (s *Spec) Name() string {
	switch {
	case s.File != "":
		return fmt.Sprintf("--%s-schema %s", s.Role, s.File)
	case s.Text != "":
		return fmt.Sprintf("--%s-schema-text", s.Role)
	case s.TopicLatest:
		return fmt.Sprintf("--%s-schema-id topic", s.Role)
	}
	return fmt.Sprintf("--%s-schema-id %d", s.Role, s.ID)
}

// detectFormat decides a schema's format: the one given, else the
// content (a Protobuf file's syntax, package, message or import
// statement; a JSON object with $schema, $ref, properties or a JSON Schema
// "type" is JSON Schema; other JSON is Avro), else the file's extension.
func detectFormat(given Format, name string, text []byte) Format {
	if given != FormatAuto {
		return given
	}
	t := bytes.TrimSpace(text)
	switch {
	case len(t) > 0 && (t[0] == '{' || t[0] == '[' || t[0] == '"'):
		if looksLikeJSONSchema(t) {
			return FormatJSON
		}
		return FormatAvro
	case looksLikeProto(t):
		return FormatProtobuf
	}
	switch strings.ToLower(filepath.Ext(name)) {
	case ".avsc", ".avro":
		return FormatAvro
	case ".proto":
		return FormatProtobuf
	case ".json":
		return FormatJSON
	}
	return FormatAvro
}

// looksLikeProto reports whether text reads as a .proto file.
func looksLikeProto(t []byte) bool {
	for line := range bytes.Lines(t) {
		l := bytes.TrimSpace(line)
		if len(l) == 0 || bytes.HasPrefix(l, []byte("//")) {
			continue
		}
		for _, kw := range []string{"syntax", "edition", "package", "message", "import", "option", "enum"} {
			if bytes.HasPrefix(l, []byte(kw)) {
				return true
			}
		}
		return false
	}
	return false
}

// looksLikeJSONSchema reports whether a JSON text is a JSON Schema rather
// than an Avro schema: it is an object with a member Avro does not have
// ($schema, $id, $ref, $defs, definitions, properties) or a "type" Avro
// does not have (object, integer, number). Only members count: a field or
// a default named "properties" is Avro's.
func looksLikeJSONSchema(t []byte) bool {
	if t[0] != '{' {
		return false
	}
	for _, kw := range []string{"$schema", "$id", "$ref", "$defs", "definitions", "properties"} {
		if len(memberValues(t, kw)) > 0 {
			return true
		}
	}
	for _, v := range memberValues(t, "type") {
		for _, ty := range []string{"object", "integer", "number"} {
			if bytes.HasPrefix(v, []byte(`"`+ty+`"`)) {
				return true
			}
		}
	}
	return false
}

// memberValues returns the text after the colon of each member named name,
// at any depth of a JSON text (a quoted name followed by a colon is a
// member's in valid JSON).
func memberValues(t []byte, name string) [][]byte {
	quoted := []byte(`"` + name + `"`)
	var out [][]byte
	for {
		i := bytes.Index(t, quoted)
		if i < 0 {
			return out
		}
		t = bytes.TrimLeft(t[i+len(quoted):], " \t\r\n")
		if len(t) > 0 && t[0] == ':' {
			out = append(out, bytes.TrimLeft(t[1:], " \t\r\n"))
		}
	}
}
