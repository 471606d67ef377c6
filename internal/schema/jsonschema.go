package schema

import (
	"bytes"
	"errors"
	"strconv"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// jsonSchemaURL is the location a JSON Schema is compiled under (the
// compiler needs one; nothing is loaded from it).
const jsonSchemaURL = "mem:///schema.json"

// jsonSchema is a compiled JSON Schema and its title (the record name of
// the record and topic-record subject strategies).
type jsonSchema struct {
	schema *jsonschema.Schema
	title  string
}

// compileJSONSchema compiles a JSON Schema in the draft its $schema names
// (draft 7, Confluent's default, without one). Only the schema itself is
// read: remote and file $refs are refused. A cycle of references that
// never goes into the value is refused too.
func compileJSONSchema(text []byte) (*jsonSchema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(text))
	if err != nil {
		return nil, schemaErrorf("not JSON: %v", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft7)
	c.UseLoader(refusingLoader{})
	if err := c.AddResource(jsonSchemaURL, doc); err != nil {
		return nil, schemaErrorf("%v", err)
	}
	s, err := c.Compile(jsonSchemaURL)
	if err != nil {
		return nil, schemaErrorf("%v", err)
	}
	if err := checkRefCycles(s); err != nil {
		return nil, err
	}
	js := &jsonSchema{schema: s}
	if m, ok := doc.(map[string]any); ok {
		js.title, _ = m["title"].(string)
	}
	return js, nil
}

// refusingLoader loads no schema from outside.
type refusingLoader struct{}

// Load refuses every URL.
func (refusingLoader) Load(url string) (any, error) {
	return nil, errors.New("only $refs within the schema are supported, not " + url)
}

// jsonEncoder checks JSON texts against a JSON Schema; the payload is the
// text itself, white space around it trimmed.
type jsonEncoder struct {
	schema  *jsonschema.Schema
	printer *message.Printer
}

// newJSONEncoder returns the encoder of s.
func newJSONEncoder(s *jsonSchema) *jsonEncoder {
	return &jsonEncoder{schema: s.schema, printer: message.NewPrinter(language.English)}
}

// appendPayload validates the JSON text and appends it to dst.
func (j *jsonEncoder) appendPayload(dst, text []byte) ([]byte, error) {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(text))
	if err != nil {
		return dst, &FieldError{Msg: "invalid JSON: " + err.Error(), Err: ErrSyntax}
	}
	if err := j.schema.Validate(v); err != nil {
		var ve *jsonschema.ValidationError
		if !errors.As(err, &ve) {
			return dst, &FieldError{Msg: err.Error(), Err: ErrMismatch}
		}
		leaf := firstLeaf(ve)
		return dst, &FieldError{Path: instancePath(leaf.InstanceLocation), Msg: leaf.ErrorKind.LocalizedString(j.printer), Err: ErrMismatch}
	}
	return append(dst, bytes.TrimSpace(text)...), nil
}

// firstLeaf is the first error with no cause: the most precise one.
func firstLeaf(e *jsonschema.ValidationError) *jsonschema.ValidationError {
	for len(e.Causes) > 0 {
		e = e.Causes[0]
	}
	return e
}

// instancePath is a JSON Schema instance location as a path: a step of
// digits is an array index.
func instancePath(loc []string) string {
	path := make([]pathElem, 0, len(loc))
	for _, p := range loc {
		if n, err := strconv.Atoi(p); err == nil && n >= 0 {
			path = append(path, pathElem{index: n})
			continue
		}
		path = append(path, pathElem{field: p})
	}
	return formatPath(path)
}
