package config

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/cli/config/javaprops"
)

func TestWarningListAggregates(t *testing.T) {
	var l warningList
	for i := 1; i <= 9; i++ {
		l.add(fmt.Sprintf("a.properties:%d: unknown property x; ignored", i))
	}
	l.add("b.properties:3: unknown property x; ignored")
	l.add("-X linger.ms ignored: --linger was given")
	l.add("-X linger.ms ignored: --linger was given")
	l.add("a.properties:12: unknown property y; ignored")
	assert.Equal(t, []string{
		"a.properties:1, 2, 3, 4, 5 and 4 more lines: unknown property x; ignored",
		"b.properties:3: unknown property x; ignored",
		"-X linger.ms ignored: --linger was given",
		"a.properties:12: unknown property y; ignored",
	}, l.list())
	file, line, msg := splitWarningPlace("C:/dir/a b.properties:7: unknown property a: b; ignored")
	assert.Equal(t, []string{"C:/dir/a b.properties", "7", "unknown property a: b; ignored"}, []string{file, line, msg})
}

// TestMillionLinePropertiesFile reads a config file of a million unknown
// properties: one warning, naming the first lines and how many more.
func TestMillionLinePropertiesFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.properties")
	require.NoError(t, os.WriteFile(path, []byte(strings.Repeat("a=1\n", 1_000_000)), 0o600))
	fs := pflag.NewFlagSet("kproduce", pflag.ContinueOnError)
	AddFlags(fs)
	require.NoError(t, fs.Parse([]string{"-F", path}))
	var stderr bytes.Buffer
	_, err := Describe(fs, &stderr)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	require.Len(t, lines, 1, "one warning for a million identical lines")
	assert.Contains(t, lines[0], path+":1, 2, 3, 4, 5 and 999995 more lines: unknown property a; ignored")
}

// TestPropertiesLinearTime checks what makes reading properties linear:
// a property name is looked up without building the table again, and a
// file is parsed without a copy of it or a slice of its lines.
func TestPropertiesLinearTime(t *testing.T) {
	assert.Zero(t, testing.AllocsPerRun(100, func() { javaprops.Lookup("linger.ms") }), "a look-up allocates nothing")
	text := strings.Repeat("some.property=some value\n", 10_000)
	allocs := testing.AllocsPerRun(5, func() {
		_ = javaprops.EachProperty(text, func(javaprops.Property) error { return nil })
	})
	assert.Less(t, allocs/10_000, 3.0, "a few allocations per line, none for the file")
}
