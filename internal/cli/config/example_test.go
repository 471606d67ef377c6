package config

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestExampleConfigIsValid(t *testing.T) {
	o, stderr, err := parseOptions(t, "--config", "../../../configs/kproduce.example.yaml", "-t", "t")
	if assert.NoError(t, err) {
		assert.Empty(t, stderr)
		def := mustOptions(t, "-t", "t")
		o.ConfigFile, o.Logger = "", def.Logger
		assert.Equal(t, def, o, "the example file holds the defaults")
	}
}

func TestExampleConfigHasEveryKey(t *testing.T) {
	data, err := os.ReadFile("../../../configs/kproduce.example.yaml")
	require.NoError(t, err)
	text := "\n" + string(data)
	for _, spec := range optionSpecs() {
		if spec.NoConfig {
			continue
		}
		assert.True(t, strings.Contains(text, "\n"+spec.Name+":") || strings.Contains(text, "\n# "+spec.Name+":"), spec.Name)
	}
}
