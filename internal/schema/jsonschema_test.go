package schema

import (
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestJSONSchemaDraftFromItsSchema: a JSON Schema is read in the draft its
// $schema names, draft 7 without one (as Confluent's serializer): draft
// 4's boolean exclusiveMinimum excludes the minimum, while draft 7 and
// 2020-12 refuse a boolean there; 2020-12's prefixItems applies only in
// 2020-12.
func TestJSONSchemaDraftFromItsSchema(t *testing.T) {
	encode := func(t *testing.T, schema, text string) error {
		t.Helper()
		c, err := compileText(FormatJSON, schema, nil, "")
		require.NoError(t, err)
		_, err = c.payload.appendPayload(nil, []byte(text))
		return err
	}
	draft4 := `{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"n":{"type":"number","minimum":5,"exclusiveMinimum":true}}}`
	assert.Error(t, encode(t, draft4, `{"n":5}`), "draft 4: the minimum itself is excluded")
	assert.NoError(t, encode(t, draft4, `{"n":5.5}`))
	for _, other := range []string{
		`{"type":"object","properties":{"n":{"type":"number","minimum":5,"exclusiveMinimum":true}}}`,
		`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"n":{"minimum":5,"exclusiveMinimum":true}}}`,
	} {
		_, err := compileText(FormatJSON, other, nil, "")
		assert.ErrorIs(t, err, ErrSchema, "a boolean exclusiveMinimum is draft 4's only: %s", other)
	}

	tuple := `"prefixItems":[{"type":"string"}]`
	assert.Error(t, encode(t, `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"array",`+tuple+`}`, `[1]`))
	assert.NoError(t, encode(t, `{"$schema":"http://json-schema.org/draft-07/schema#","type":"array",`+tuple+`}`, `[1]`),
		"draft 7 does not know prefixItems")
	assert.NoError(t, encode(t, `{"type":"array",`+tuple+`}`, `[1]`), "no $schema: draft 7")
}

// TestJSONSchemaRefCycles: a chain of subschemas applied to the value
// itself that comes back to its start is refused when the schema is
// compiled, through every keyword that applies a schema in place; the
// library's own validator would indeed go round it (it reports the cycle
// for the value given, or, under not and if, takes it for a failure of the
// subschema: an answer by accident). A recursion through a part of the value is
// accepted and validates to any depth, and keywords a draft ignores next
// to $ref make no cycle.
func TestJSONSchemaRefCycles(t *testing.T) {
	const d2020 = `"$schema":"https://json-schema.org/draft/2020-12/schema",`
	for _, tc := range []struct{ schema, value, cycle string }{
		{`{"$ref":"#"}`, `1`, "# -> #"},
		{`{"definitions":{"a":{"$ref":"#/definitions/b"},"b":{"$ref":"#/definitions/a"}},"properties":{"p":{"$ref":"#/definitions/a"}}}`,
			`{"p":1}`, "#/definitions/a -> #/definitions/b -> #/definitions/a"},
		{`{` + d2020 + `"type":"string","$ref":"#"}`, `"x"`, "# -> #"},
		{`{"anyOf":[{"type":"string"},{"$ref":"#"}]}`, `1`, "# -> #/anyOf/1 -> #"},
		{`{"oneOf":[{"$ref":"#"}]}`, `1`, "# -> #/oneOf/0 -> #"},
		{`{"not":{"$ref":"#"}}`, "", "# -> #/not -> #"},
		{`{"if":{"$ref":"#"}}`, "", "# -> #/if -> #"},
		{`{"if":true,"then":{"$ref":"#"}}`, `1`, "# -> #/then -> #"},
		{`{"if":false,"else":{"$ref":"#"}}`, `1`, "# -> #/else -> #"},
		{`{"dependencies":{"a":{"$ref":"#"}}}`, `{"a":1}`, "# -> #/dependencies/a -> #"},
		{`{` + d2020 + `"dependentSchemas":{"a":{"$ref":"#"}}}`, `{"a":1}`, "# -> #/dependentSchemas/a -> #"},
		{`{` + d2020 + `"$dynamicAnchor":"n","allOf":[{"$dynamicRef":"#n"}]}`, `1`, "# -> #/allOf/0 -> #"},
		{`{"$schema":"https://json-schema.org/draft/2019-09/schema","$recursiveAnchor":true,"anyOf":[{"$recursiveRef":"#"}]}`, `1`, "# -> #/anyOf/0 -> #"},
	} {
		_, err := compileText(FormatJSON, tc.schema, nil, "")
		require.ErrorIs(t, err, ErrSchema, tc.schema)
		assert.ErrorContains(t, err, "reference cycle "+tc.cycle+": ", tc.schema)
		if tc.value == "" {
			continue
		}

		c := jsonschema.NewCompiler()
		c.DefaultDraft(jsonschema.Draft7)
		doc, err := jsonschema.UnmarshalJSON(strings.NewReader(tc.schema))
		require.NoError(t, err)
		require.NoError(t, c.AddResource(jsonSchemaURL, doc))
		s, err := c.Compile(jsonSchemaURL)
		require.NoError(t, err, "the library compiles it")
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(tc.value))
		require.NoError(t, err)
		assert.ErrorContains(t, s.Validate(v), "causing reference cycle", "the library's validator goes round: %s", tc.schema)
	}

	for _, tc := range []struct{ schema, good, bad string }{
		{`{"type":"object","properties":{"children":{"type":"array","items":{"$ref":"#"}}}}`,
			`{"children":[{"children":[{"children":[]}]},{}]}`, `{"children":[{"children":[1]}]}`},
		{`{"definitions":{"a":{"$ref":"#/definitions/b"},"b":{"type":"array","items":{"$ref":"#/definitions/a"}}},"$ref":"#/definitions/a"}`,
			`[[],[[]]]`, `[[1]]`},
		{`{"anyOf":[{"type":"string"},{"type":"object","additionalProperties":{"$ref":"#"}}]}`, `{"a":{"b":"c"}}`, `{"a":{"b":1}}`},
		{`{"propertyNames":{"$ref":"#"},"maxLength":3}`, `{"abc":1}`, `{"abcd":1}`},
		{`{"$ref":"#/definitions/s","allOf":[{"$ref":"#"}],"definitions":{"s":{"type":"string"}}}`, `"x"`, `1`},
		{`{` + d2020 + `"$dynamicAnchor":"n","type":"array","items":{"$dynamicRef":"#n"}}`, `[[[]]]`, `[[1]]`},
		{`{` + d2020 + `"type":"array","prefixItems":[{"$ref":"#"}],"unevaluatedItems":{"$ref":"#"}}`, `[[],[[]]]`, `[[],[1]]`},
	} {
		c, err := compileText(FormatJSON, tc.schema, nil, "")
		require.NoError(t, err, tc.schema)
		_, err = c.payload.appendPayload(nil, []byte(tc.good))
		assert.NoError(t, err, "%s: %s", tc.schema, tc.good)
		_, err = c.payload.appendPayload(nil, []byte(tc.bad))
		assert.ErrorIs(t, err, ErrMismatch, "%s: %s", tc.schema, tc.bad)
	}
}
