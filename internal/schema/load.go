package schema

import (
	"bytes"
	"path/filepath"
	"strings"

	"github.com/twmb/franz-go/pkg/sr"
)

// payloadEncoder appends one record's payload, the schema's encoding of
// its JSON text.
type payloadEncoder interface {
	appendPayload(dst, text []byte) ([]byte, error)
}

// compiled is a schema ready to encode with: its text and references as
// registered, the name of its record (for the subject strategies), the
// Protobuf message index, and the encoder of its payloads.
type compiled struct {
	format  Format
	text    string
	refs    []reference
	record  string
	index   []int
	payload payloadEncoder
}

// Local is a schema read from a file or given inline, compiled.
type Local struct {
	c *compiled
}

// Format is the schema's format.
func (l *Local) Format() Format { return l.c.format }

// Record is the full name of the schema's record (Avro), message
// (Protobuf) or title (JSON Schema); "" when it has none.
func (l *Local) Record() string { return l.c.record }

// Load reads and compiles the schema of a spec with a File or Text (nil,
// nil for one by id). Its errors wrap ErrSchema: a file that cannot be
// read, a schema that does not compile, an unknown Protobuf message.
func Load(spec *Spec) (*Local, error) {
	if spec.File == "" && spec.Text == "" {
		return nil, nil
	}
	text := []byte(spec.Text)
	name, where := inlineProtoName, "the schema given inline"
	if spec.File != "" {
		data, err := readLimited(spec.File)
		if err != nil {
			return nil, schemaErrorf("%w", err)
		}
		text, name, where = data, spec.File, spec.File
	}
	if len(bytes.TrimSpace(text)) == 0 {
		return nil, schemaErrorf("%s is empty", where)
	}
	format := detectFormat(spec.Format, name, text)
	var c *compiled
	var err error
	if format == FormatProtobuf {
		c, err = loadLocalProto(spec, text)
	} else {
		c, err = compileText(format, string(text), nil, spec.MessageType)
	}
	if err != nil {
		return nil, schemaErrorf("%s: %v schema: %w", where, format, err)
	}
	return &Local{c: c}, nil
}

// loadLocalProto compiles a .proto file or inline text: a file under one
// of the proto paths is known by its path there, another by its base name
// with its directory searched first.
func loadLocalProto(spec *Spec, text []byte) (*compiled, error) {
	src := &protoSources{paths: spec.ProtoPaths, memory: map[string]string{}}
	main := inlineProtoName
	if spec.File == "" {
		src.memory[main] = string(text)
	} else {
		main = ""
		abs, _ := filepath.Abs(spec.File)
		for _, dir := range spec.ProtoPaths {
			d, _ := filepath.Abs(dir)
			if rel, err := filepath.Rel(d, abs); err == nil && !strings.HasPrefix(rel, "..") {
				main = filepath.ToSlash(rel)
				break
			}
		}
		if main == "" {
			main = filepath.Base(spec.File)
			src.paths = append([]string{filepath.Dir(spec.File)}, src.paths...)
		}
		src.memory[main] = string(text)
	}
	ps, err := compileProto(src, main, spec.MessageType)
	if err != nil {
		return nil, err
	}
	return protoCompiled(string(text), ps), nil
}

// protoCompiled is a compiled Protobuf schema.
func protoCompiled(text string, ps *protoSchema) *compiled {
	return &compiled{format: FormatProtobuf, text: text, refs: ps.refs, record: string(ps.message.FullName()),
		index: ps.index, payload: newProtoEncoder(ps.message)}
}

// compileText compiles an Avro schema or a JSON Schema, or a Protobuf
// schema whose imports are in imports (by import name; a registered
// schema's references).
func compileText(format Format, text string, imports map[string]string, messageType string) (*compiled, error) {
	switch format {
	case FormatAvro:
		root, err := compileAvroText(text)
		if err != nil {
			return nil, err
		}
		c := &compiled{format: format, text: text, payload: newAvroEncoder(root)}
		if root.kind == avroRecord {
			c.record = root.name
		}
		return c, nil
	case FormatJSON:
		js, err := compileJSONSchema([]byte(text))
		if err != nil {
			return nil, err
		}
		return &compiled{format: format, text: text, record: js.title, payload: newJSONEncoder(js)}, nil
	case FormatProtobuf:
		src := &protoSources{memory: map[string]string{inlineProtoName: text}}
		for name, t := range imports {
			src.memory[name] = t
		}
		ps, err := compileProto(src, inlineProtoName, messageType)
		if err != nil {
			return nil, err
		}
		return protoCompiled(text, ps), nil
	}
	return nil, schemaErrorf("unknown schema type %q", format)
}

// registryFormat is the format of a registered schema (Avro when the
// registry names none, as it does).
func registryFormat(t sr.SchemaType) Format {
	switch t {
	case sr.TypeProtobuf:
		return FormatProtobuf
	case sr.TypeJSON:
		return FormatJSON
	}
	return FormatAvro
}
