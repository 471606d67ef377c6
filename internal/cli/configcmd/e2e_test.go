package configcmd_test

import (
	"context"
	"encoding/json"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kproduce/kproduce/internal/cli"
	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/cli/configcmd"
	"github.com/kproduce/kproduce/internal/kafkatest"
	"github.com/kproduce/kproduce/internal/kafkatest/javastores"
	"github.com/kproduce/kproduce/pkg/network/networktest"
)

// These tests run kproduce config as a user does, through internal/cli's
// Execute, which prints the errors the command returns and gives the exit
// status: what the user is shown, secrets redacted. configSettings and
// command_test.go build the command alone.

// runKproduce runs kproduce in-process with stdin and args, as main does.
func runKproduce(t testing.TB, stdin io.Reader, args ...string) kafkatest.Result {
	t.Helper()
	return kafkatest.Run(t, context.Background(), cli.Execute, stdin, args...)
}

// run runs kproduce with stdin and args and returns its exit status,
// stdout and stderr.
func run(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	res := runKproduce(t, strings.NewReader(stdin), args...)
	return res.Code, res.Stdout, res.Stderr
}

// TestE2EConfigCommand: kproduce config prints every setting with where
// it came from, the password redacted.
func TestE2EConfigCommand(t *testing.T) {
	path := kafkatest.WithDefaultConfig(t, "client-id: from-file\nprofile: p\nprofiles:\n  p:\n    sasl-password: hunter2\n    brokers: [p:9092]\n")
	t.Setenv("KPRODUCE_LINGER", "7ms")
	res := runKproduce(t, nil, "config", "-X", "acks=1", "--compression", "zstd", "--timeout", "250")
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	out := res.Stdout
	assert.Contains(t, out, "config file:  "+path+" (default location)")
	assert.Contains(t, out, "profile:      p")
	for _, want := range [][]string{
		{"compression", "zstd", "flag --compression"},
		{"acks", "1", "-X acks"},
		{"linger", "250ms", "flag --timeout"},
		{"client-id", "from-file", path + ":1"},
		{"brokers", "p:9092", path + ":6 (profile p)"},
		{"sasl-password", "[redacted]", path + ":5 (profile p)"},
		{"batch-size", "1MiB", "default"},
	} {
		assert.Regexp(t, `(?m)^`+want[0]+` +`+regexpQuote(want[1])+` +`+regexpQuote(want[2])+`$`, out, want[0])
	}
	assert.NotContains(t, out, "hunter2")

	res = runKproduce(t, nil, "config", "--json", "--profile", "p")
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	var d struct {
		Settings []struct{ Name, Value, Origin string }
	}
	require.NoError(t, json.Unmarshal([]byte(res.Stdout), &d))
	assert.NotEmpty(t, d.Settings)
	res = runKproduce(t, nil, "config", "--linger", "soon")
	assert.Equal(t, cmdutil.ExitUsage, res.Code)
	assert.Contains(t, res.Stderr, `--linger "soon"`)
}

// regexpQuote quotes s for a regular expression.
func regexpQuote(s string) string {
	r := strings.NewReplacer(`[`, `\[`, `]`, `\]`, `(`, `\(`, `)`, `\)`, `.`, `\.`)
	return r.Replace(s)
}

// configSetting is one row of kproduce config --json.
type configSetting struct{ Name, Value, Origin string }

// configSettings runs kproduce config --json, built alone, with args and
// returns its settings by name.
func configSettings(t *testing.T, args ...string) map[string]configSetting {
	t.Helper()
	r := kafkatest.RunCommand(t, func(s cmdutil.Streams) *cobra.Command { return configcmd.NewCommand(s, nil) },
		append([]string{"--json"}, args...)...)
	require.NoError(t, r.Err, r.Stderr)
	res := r.Result
	var d struct{ Settings []configSetting }
	require.NoError(t, json.Unmarshal([]byte(res.Stdout), &d))
	m := map[string]configSetting{}
	for _, s := range d.Settings {
		m[s.Name] = s
	}
	return m
}

// TestE2EConfigShowsDerivedValues: kproduce config shows the value a run
// uses, not the default, where a rule derives it from another setting,
// with that cause; and the run uses what config shows (no producer id in
// the batches of a run with acks=1).
func TestE2EConfigShowsDerivedValues(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"-X", "acks=1"}, {"--request-required-acks", "1"}, {"-a", "1"}} {
		s := configSettings(t, args...)
		assert.Equal(t, configSetting{"idempotence", "false", "derived: acks=1"}, s["idempotence"], "%v", args)
	}
	assert.Equal(t, configSetting{"idempotence", "false", "derived: retries=0"}, configSettings(t, "--retries", "0")["idempotence"])
	assert.Equal(t, configSetting{"idempotence", "false", "flag --idempotence"},
		configSettings(t, "-a", "1", "--idempotence=false")["idempotence"], "given, not derived")
	assert.Equal(t, configSetting{"idempotence", "true", "default"}, configSettings(t)["idempotence"])
	assert.Equal(t, configSetting{"request-timeout", "2.995s", "derived: delivery-timeout 3s - linger 5ms"},
		configSettings(t, "--delivery-timeout", "3s")["request-timeout"])

	res := runKproduce(t, nil, "config", "-X", "acks=1")
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	assert.Regexp(t, regexp.MustCompile(`(?m)^idempotence +false +derived: acks=1$`), res.Stdout)

	c := kafkatest.NewCluster(t, kfake.NumBrokers(3), kfake.SeedTopics(6, "t"), kfake.AllowAutoTopicCreation(), kfake.DefaultNumPartitions(6))
	run := runKproduce(t, strings.NewReader("a\nb\n"), "-b", kafkatest.Brokers(c), "-t", "t", "-X", "acks=1")
	require.Equal(t, cmdutil.ExitOK, run.Code, run.Stderr)
	for _, r := range kafkatest.ConsumeExactly(t, c, "t", 2) {
		assert.EqualValues(t, -1, r.ProducerID, "idempotence off, as config showed")
	}
	run = runKproduce(t, strings.NewReader("c\n"), "-b", kafkatest.Brokers(c), "-t", "u")
	require.Equal(t, cmdutil.ExitOK, run.Code, run.Stderr)
	assert.GreaterOrEqual(t, kafkatest.ConsumeExactly(t, c, "u", 1)[0].ProducerID, int64(0), "idempotent by default")
}

// TestE2EConfigProgressAlone: kproduce config reads --progress alone as
// --progress always, as a run does, and --progress never as never.
func TestE2EConfigProgressAlone(t *testing.T) {
	t.Parallel()
	s := configSettings(t, "--progress")
	assert.Equal(t, configSetting{"progress", "always", "flag --progress"}, s["progress"])
	assert.Equal(t, "never", configSettings(t, "--progress", "never")["progress"].Value)
}

// TestE2EKeystorePasswordsRedacted: kproduce config shows the store
// passwords, given any way, as [redacted].
func TestE2EKeystorePasswordsRedacted(t *testing.T) {
	certs := networktest.NewCertFiles(t)
	s := javastores.Make(t, certs)
	pw := javastores.Password
	t.Setenv("KPRODUCE_TLS_TRUSTSTORE_PASSWORD", pw)
	res := runKproduce(t, strings.NewReader(""), "config", "--tls-keystore", s.JKSKeystore, "--tls-keystore-password", pw, "--tls-truststore", s.JKSTruststore, "-X", "ssl.key.password="+pw)
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	assert.NotContains(t, res.Stdout+res.Stderr, pw)
	assert.Regexp(t, `tls-keystore-password\s+\[redacted\]`, res.Stdout)
	assert.Regexp(t, `tls-truststore-password\s+\[redacted\]`, res.Stdout)
}

// TestE2ESchemaRegistrySecretsRedacted: kproduce config never shows the
// Schema Registry's password, token or the credentials of its URL; user
// and token together are refused.
func TestSchemaConfigRedactsRegistrySecrets(t *testing.T) {
	code, out, errOut := run(t, "", "config", "--schema-registry", "http://h:8081", "--schema-registry-user", "alice:pw-123",
		"--schema-registry-token", "tok-456", "-X", "basic.auth.user.info=bob:pw-789", "-X", "bearer.auth.token=tok-000")
	require.Equal(t, 2, code, "user and token together are refused: %s", errOut)
	assert.NotContains(t, out+errOut, "pw-123")
	assert.NotContains(t, out+errOut, "tok-456")
	code, out, errOut = run(t, "", "config", "--schema-registry", "http://h:8081", "--schema-registry-user", "alice:pw-123",
		"-X", "basic.auth.user.info=bob:pw-789")
	require.Equal(t, 0, code, errOut)
	code2, out2, errOut2 := run(t, "", "config", "-X", "bearer.auth.token=tok-000")
	require.Equal(t, 0, code2, errOut2)
	code3, out3, errOut3 := run(t, "", "config", "--schema-registry", "http://carol:pw-url1@h:8081", "-X", "schema.registry.url=http://dave:pw-url2@h:8081",
		"--log-level", "debug")
	require.Equal(t, 0, code3, errOut3)
	out2 += out3 + errOut3
	assert.Contains(t, out3, "http://carol:[redacted]@h:8081")
	for _, secret := range []string{"pw-123", "pw-789", "tok-000", "pw-url1", "pw-url2"} {
		assert.NotContains(t, out+errOut+out2+errOut2, secret)
	}
	assert.Contains(t, out, "schema-registry-user")
	assert.Contains(t, out, "[redacted]")
	assert.Contains(t, out, "flag --schema-registry-user")
}
