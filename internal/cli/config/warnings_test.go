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

// TestMisspeltPropertyNamesTheKnownOne: a property name close to a known
// one, an ssl. or sasl. one among them, is a warning naming the known
// one (not that it needs a security protocol); it is ignored, and a name
// like none stays a plain unknown property.
func TestMisspeltPropertyNamesTheKnownOne(t *testing.T) {
	path := filepath.Join(t.TempDir(), "producer.properties")
	require.NoError(t, os.WriteFile(path, []byte("lingr.ms=50\n"), 0o600))
	o, stderr, err := parseOptions(t, "-t", "t", "-F", path, "-X", "compression.typ=zstd",
		"-X", "sasl.mechansim=PLAIN", "-X", "ssl.truststore.locaton=x", "-X", "foo.bar=1")
	require.NoError(t, err)
	assert.Contains(t, stderr, path+":1: unknown property lingr.ms; ignored (did you mean linger.ms?)")
	assert.Contains(t, stderr, "-X compression.typ: unknown property compression.typ; ignored (did you mean compression.type?)")
	assert.Contains(t, stderr, "unknown property sasl.mechansim; ignored (did you mean sasl.mechanism?)")
	assert.Contains(t, stderr, "unknown property ssl.truststore.locaton; ignored (did you mean ssl.truststore.location?)")
	assert.Contains(t, stderr, "-X foo.bar: unknown property foo.bar; ignored (kproduce -X help lists the known ones)")
	assert.NotContains(t, stderr, "has no effect without security.protocol")
	assert.Equal(t, "none", o.Compression.String(), "a misspelt property sets nothing")
	assert.Equal(t, mustOptions(t, "-t", "t").Linger, o.Linger)
	assert.Empty(t, o.Security.SASLMechanism)
}

// TestManyUnknownPropertyNames: in a file of many distinct made-up
// names, the first ones close to a known property get their hint, and
// every one, past the names compared with the known ones too, is warned
// about.
func TestManyUnknownPropertyNames(t *testing.T) {
	var b strings.Builder
	b.WriteString("lingr.ms=1\n")
	for i := range 100_000 {
		fmt.Fprintf(&b, "made.up.%d=1\n", i)
	}
	b.WriteString("acks.typo=1\n")
	path := filepath.Join(t.TempDir(), "many.properties")
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o600))
	_, stderr, err := parseOptions(t, "-F", path, "-t", "t")
	require.NoError(t, err)
	assert.Contains(t, stderr, "unknown property lingr.ms; ignored (did you mean linger.ms?)")
	assert.Contains(t, stderr, "unknown property made.up.0; ignored")
	assert.Contains(t, stderr, "unknown property made.up.99999; ignored")
	assert.Contains(t, stderr, ":100002: unknown property acks.typo; ignored")
}
