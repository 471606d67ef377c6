package javaprops

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseJAAS(t *testing.T) {
	tests := []struct {
		in     string
		module string
		opts   map[string]string
	}{
		{`org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="p";`,
			"org.apache.kafka.common.security.plain.PlainLoginModule", map[string]string{"username": "u", "password": "p"}},
		{"  org.apache.kafka.common.security.scram.ScramLoginModule  REQUIRED\n\tusername=alice   password = \"a \\\"quoted\\\" p;w=\"  ;  ",
			"org.apache.kafka.common.security.scram.ScramLoginModule", map[string]string{"username": "alice", "password": `a "quoted" p;w=`}},
		{`M optional;`, "M", map[string]string{}},
		{`M sufficient password="" user=x;`, "M", map[string]string{"password": "", "user": "x"}},
	}
	for _, tt := range tests {
		cfg, err := ParseJAAS(tt.in)
		require.NoError(t, err, tt.in)
		assert.Equal(t, tt.module, cfg.Module)
		assert.Equal(t, tt.opts, cfg.Options)
	}
	for _, bad := range []string{
		``, `M`, `M required`, `M always password="hunter2";`, `M required password="hunter2"`,
		`M required password="hunter2;`, `M required password=;`, `M required ="hunter2";`,
		`M required password="hunter2"; N required;`, `M required password hunter2;`,
	} {
		_, err := ParseJAAS(bad)
		require.Error(t, err, bad)
		assert.ErrorIs(t, err, ErrBadJAAS)
		assert.NotContains(t, err.Error(), "hunter2", "a JAAS error never shows a value")
	}
}
