package config

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
)

// defaultConfig writes the default config file under a fresh
// XDG_CONFIG_HOME.
func defaultConfig(t *testing.T, text string) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	path := filepath.Join(dir, "kproduce", "config.yaml")
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o700))
	require.NoError(t, os.WriteFile(path, []byte(text), 0o600))
	return path
}

// TestConfigDiscovery: --config, else KPRODUCE_CONFIG, else the default
// file when it exists; an empty --config reads none.
func TestConfigDiscovery(t *testing.T) {
	def := defaultConfig(t, "client-id: from-default\n")
	o := mustOptions(t, "-t", "t")
	assert.Equal(t, "from-default", o.ClientID)
	assert.Equal(t, def, o.ConfigFile)

	env := writeFile(t, "env.yaml", "client-id: from-env\n")
	t.Setenv("KPRODUCE_CONFIG", env)
	assert.Equal(t, "from-env", mustOptions(t, "-t", "t").ClientID)
	flag := writeFile(t, "flag.yaml", "client-id: from-flag\n")
	assert.Equal(t, "from-flag", mustOptions(t, "-t", "t", "--config", flag).ClientID)
	o = mustOptions(t, "-t", "t", "--config", "")
	assert.Equal(t, "kproduce", o.ClientID, "--config '' reads no file")
	assert.Empty(t, o.ConfigFile)

	t.Setenv("KPRODUCE_CONFIG", "")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	o = mustOptions(t, "-t", "t")
	assert.Empty(t, o.ConfigFile, "no default file: none read")
}

// TestProfiles: a profile's settings apply over the file's; --profile,
// else KPRODUCE_PROFILE, else the file's profile key chooses it.
func TestProfiles(t *testing.T) {
	path := writeFile(t, "c.yaml", `
brokers: [top:9092]
client-id: top
profile: dev
profiles:
  dev:
    brokers: [dev:9092]
  prod:
    brokers: prod1:9093,prod2:9093
    sasl-mechanism: PLAIN
    sasl-username: alice
    sasl-password: s3cret
    property: {linger.ms: 7}
`)
	o := mustOptions(t, "-t", "t", "--config", path)
	assert.Equal(t, []string{"dev:9092"}, o.Brokers, "the file's default profile")
	assert.Equal(t, "top", o.ClientID, "other keys from the top level")
	o = mustOptions(t, "-t", "t", "--config", path, "--profile", "prod")
	assert.Equal(t, []string{"prod1:9093", "prod2:9093"}, o.Brokers)
	assert.Equal(t, "PLAIN", o.Security.SASLMechanism)
	assert.Equal(t, 7*time.Millisecond, o.Linger)
	t.Setenv("KPRODUCE_PROFILE", "prod")
	assert.Equal(t, "alice", mustOptions(t, "-t", "t", "--config", path).Security.SASLUsername)
	assert.Equal(t, []string{"cli:1"}, mustOptions(t, "-t", "t", "--config", path, "-b", "cli:1").Brokers, "a flag beats the profile")

	_, _, err := parseOptions(t, "-t", "t", "--config", path, "--profile", "stage")
	assert.ErrorContains(t, err, `no profile "stage": the profiles are dev, prod`)
	t.Setenv("KPRODUCE_PROFILE", "")
	_, _, err = parseOptions(t, "-t", "t", "--config", "", "--profile", "prod")
	assert.ErrorContains(t, err, "no config file")
	props := writeFile(t, "p.properties", "acks=1\n")
	_, _, err = parseOptions(t, "-t", "t", "--config", props, "--profile", "prod")
	assert.ErrorContains(t, err, "properties file, which has no profiles")
	bad := writeFile(t, "bad.yaml", "profiles:\n  a:\n    lingr: 1ms\n")
	_, _, err = parseOptions(t, "-t", "t", "--config", bad, "--profile", "a")
	assert.ErrorContains(t, err, `unknown key "lingr"`)
	assert.ErrorContains(t, err, "did you mean linger?")
}

// TestConfigFormatByContent: a file is read as properties when its first
// setting is NAME=VALUE or a dotted name, and as YAML otherwise, whatever
// its extension says; the extension breaks the tie of a file with no
// setting.
func TestConfigFormatByContent(t *testing.T) {
	tests := map[string]string{
		"# kcat\nmetadata.broker.list=a:1\n":    fileProperties,
		"acks = all\n":                          fileProperties,
		"bootstrap.servers: a:1\n":              fileProperties,
		"linger.ms 5\n":                         fileProperties,
		"brokers: [a:1]\n":                      fileYAML,
		"---\nacks: all\n":                      fileYAML,
		"\n# comment\nclient-id: x\n":           fileYAML,
		"":                                      fileYAML,
		"- a\n":                                 fileYAML,
		"profiles:\n  a:\n    brokers: [x:1]\n": fileYAML,
	}
	for text, want := range tests {
		assert.Equal(t, want, configFormat("client.conf-less", []byte(text)), "%q", text)
	}
	for text, want := range tests {
		for _, name := range []string{"y.conf", "producer.properties", "kproduce.yaml", "x.cfg"} {
			if text != "" {
				assert.Equal(t, want, configFormat(name, []byte(text)), "%s: %q", name, text)
			}
		}
	}
	assert.Equal(t, fileProperties, configFormat("kcat.conf", []byte("# no setting yet\n")), "a tie: the extension")
	assert.Equal(t, fileYAML, configFormat("x.yml", []byte("")), "a tie: the extension")

	// y.conf holding YAML: read as YAML (its brokers and topic taken).
	yconf := writeFile(t, "y.conf", "brokers: [h:9092]\ntopic: t\n")
	yo := mustOptions(t, "--config", yconf)
	assert.Equal(t, []string{"h:9092"}, yo.Brokers)
	assert.Equal(t, "t", yo.Topic)

	conf := writeFile(t, "client", "bootstrap.servers=c1:9092\nlinger.ms=4\n")
	o := mustOptions(t, "-t", "t", "--config", conf)
	assert.Equal(t, []string{"c1:9092"}, o.Brokers)
	assert.Equal(t, 4*time.Millisecond, o.Linger)
}

// describe runs Describe on args.
func describe(t *testing.T, args ...string) (*Description, string) {
	t.Helper()
	fs := pflag.NewFlagSet("config", pflag.ContinueOnError)
	AddFlags(fs)
	require.NoError(t, fs.Parse(args))
	var stderr bytes.Buffer
	d, err := Describe(fs, &stderr)
	require.NoError(t, err)
	return d, stderr.String()
}

// TestDescribeOrigins: kproduce config names where each value came from,
// secrets redacted.
func TestDescribeOrigins(t *testing.T) {
	path := defaultConfig(t, "client-id: file\nprofile: p\nprofiles:\n  p:\n    brokers: [p:9092]\n    sasl-password: hunter2\nproperty:\n  retries: 3\n")
	t.Setenv("KPRODUCE_DELIVERY_TIMEOUT", "1m")
	d, _ := describe(t, "--linger", "1ms", "-X", "acks=1", "--timeout", "20", "-vv",
		"-X", "security.protocol=SASL_PLAINTEXT", "-X", "sasl.mechanism=PLAIN", "--sasl-username", "u")
	assert.Equal(t, path, d.ConfigFile)
	assert.Equal(t, "default location", d.ConfigOrigin)
	assert.Equal(t, "p", d.Profile)
	got := map[string]Setting{}
	for _, s := range d.Settings {
		got[s.Name] = s
	}
	want := map[string][2]string{
		"linger":           {"1ms", "flag --linger"},
		"acks":             {"1", "-X acks"},
		"log-level":        {"debug", "flag -vv"},
		"delivery-timeout": {"1m", "env KPRODUCE_DELIVERY_TIMEOUT"},
		"client-id":        {"file", path + ":1"},
		"brokers":          {"p:9092", path + ":5 (profile p)"},
		"sasl-password":    {"[redacted]", path + ":6 (profile p)"},
		"retries":          {"3", path + ":8 (retries)"},
		"sasl-mechanism":   {"PLAIN", "-X sasl.mechanism"},
		"tls":              {"false", "-X security.protocol"},
		"batch-size":       {"1MiB", "default"},
	}
	for name, w := range want {
		assert.Equal(t, w[0], got[name].Value, name)
		assert.Equal(t, w[1], got[name].Origin, name)
	}
	d, _ = describe(t, "-X", `sasl.jaas.config=M required password="hunter2";`)
	for _, s := range d.Settings {
		assert.NotContains(t, s.Value, "hunter2", s.Name)
	}
	fs := pflag.NewFlagSet("config", pflag.ContinueOnError)
	AddFlags(fs)
	require.NoError(t, fs.Parse([]string{"--linger", "soon"}))
	_, err := Describe(fs, &bytes.Buffer{})
	assert.True(t, cmdutil.IsUsageError(err))
	assert.False(t, strings.Contains(err.Error(), "topic"), "a topic is not required: %v", err)
}
