package javaprops

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRedactJAAS(t *testing.T) {
	tests := map[string]string{
		`M required username="u" password="p";`:         `M required username="u" password="[redacted]";`,
		`M required password = "a \" b" user="x";`:      `M required password = "[redacted]" user="x";`,
		`M required password=plain;`:                    `M required password=[redacted];`,
		`M required PASSWORD="X" truststore.password=y`: `M required PASSWORD="[redacted]" truststore.password=[redacted]`,
		`M required passwordless="x";`:                  `M required passwordless="x";`,
	}
	for in, want := range tests {
		assert.Equal(t, want, RedactJAAS(in), in)
	}
	got := Redact(map[string]string{"ssl.keystore.password": "a", "security.protocol": "SSL"})
	assert.Equal(t, map[string]string{"ssl.keystore.password": Redacted, "security.protocol": "SSL"}, got)
}
