package schema

import (
	"testing"

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
