package input

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestJSONReaderRejectsStrayCommas checks that a comma with nothing after
// it, or before the first member or element, is malformed JSON wherever it
// appears: in the record object, in a value, and in each form of headers.
func TestJSONReaderRejectsStrayCommas(t *testing.T) {
	bad := []string{
		`{"value":"v",}`,
		`{,"value":"v"}`,
		`{"value":[1,]}`,
		`{"value":{"a":1,}}`,
		`{"key":[,1],"value":"v"}`,
		`{"headers":{"a":"1",},"value":"v"}`,
		`{"headers":{"a":["1",]},"value":"v"}`,
		`{"headers":["a","1",],"value":"v"}`,
		`{"headers":[,"a","1"],"value":"v"}`,
		`{"headers":[{"key":"a",}],"value":"v"}`,
		`{"headers":[{"key":"a","value":"1",}],"value":"v"}`,
		`{"headers":[{,"key":"a"}],"value":"v"}`,
		`{"headers":[{"key":"a"},],"value":"v"}`,
		`{"headers":[,{"key":"a"}],"value":"v"}`,
	}
	for _, line := range bad {
		t.Run(line, func(t *testing.T) {
			require.False(t, json.Valid([]byte(line)), "the case must be invalid JSON")
			opts := &Config{Format: FormatJSON, Delimiter: []byte("\n"), MaxRecordBytes: 1 << 20}
			recs := readAll(t, newJSONReader(opts, "-", strings.NewReader(line+"\n"), 64))
			require.Len(t, recs, 1)
			if assert.Error(t, recs[0].Err, "accepted") {
				assert.Contains(t, recs[0].Err.Error(), "malformed JSON")
			}
		})
	}
}
