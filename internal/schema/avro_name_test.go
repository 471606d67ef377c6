package schema

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestIsAvroName checks the name test against the specification's
// pattern, on names that are and are not Avro names.
func TestIsAvroName(t *testing.T) {
	spec := regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	for _, name := range []string{"", "a", "_", "Z9", "_1", "ab_cd", "1R", "9", "a-b", "a.b", "a b", "é", "a\n", "\na", "A\x00", "[", "`", "@", "{"} {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, spec.MatchString(name), isAvroName(name), "%q", name)
		})
	}
}
