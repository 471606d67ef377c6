package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jcmturner/gokrb5/v8/iana/etypeID"
	"github.com/jcmturner/gokrb5/v8/keytab"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
)

// run executes kproduce in-process and returns the exit status, stdout and
// stderr.
func run(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Execute(context.Background(), args, cmdutil.Streams{In: strings.NewReader(stdin), Out: &out, Err: &errOut})
	return code, out.String(), errOut.String()
}

func TestHelp(t *testing.T) {
	code, out, _ := run(t, "", "--help")
	assert.Equal(t, cmdutil.ExitOK, code)
	for _, want := range []string{"kproduce [flags] [FILE ...]", "Examples:", "-K '\\t'", "kcat -C", "-f file", "--config producer.properties",
		"--brokers host:port,...", "--linger duration", "--property KEY=VALUE", "KPRODUCE_BROKERS"} {
		assert.Contains(t, out, want)
	}
}

func TestUsageExitStatus(t *testing.T) {
	tests := map[string]struct {
		args []string
		want string
	}{
		"unknown flag":         {[]string{"-t", "t", "--nope"}, "unknown flag: --nope"},
		"bad flag value":       {[]string{"-t", "t", "--linger", "soon"}, `--linger "soon"`},
		"flag missing a value": {[]string{"-t"}, "flag needs an argument"},
		"missing topic":        {nil, "--topic"},
		"unknown yaml key":     {[]string{"-t", "t", "--config", "testdata/unknown-key.yaml"}, `unknown key "lingerr"`},
		"missing config":       {[]string{"-t", "t", "--config", "testdata/does-not-exist.yaml"}, "does-not-exist.yaml"},
		"idempotence conflict": {[]string{"-t", "t", "-a", "1", "--idempotence"}, "--idempotence needs --acks all"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			code, out, errOut := run(t, "", tt.args...)
			assert.Equal(t, cmdutil.ExitUsage, code)
			assert.Empty(t, out)
			assert.Contains(t, errOut, "error: ")
			assert.Contains(t, errOut, tt.want)
			assert.Contains(t, errOut, "Run 'kproduce --help' for usage.")
		})
	}
}

func TestEveryErrorOnItsOwnLine(t *testing.T) {
	code, _, errOut := run(t, "", "-t", "t", "--linger", "x", "-z", "y")
	assert.Equal(t, cmdutil.ExitUsage, code)
	assert.Contains(t, errOut, "error: --linger \"x\"")
	assert.Contains(t, errOut, "\nerror: --compression \"y\"")
}

func TestCompletionScripts(t *testing.T) {
	for shell, want := range map[string]string{"bash": "bash completion V2 for kproduce", "zsh": "#compdef kproduce",
		"fish": "fish completion for kproduce", "powershell": "powershell completion for kproduce"} {
		code, out, errOut := run(t, "", "completion", shell)
		assert.Equal(t, cmdutil.ExitOK, code, errOut)
		assert.Contains(t, out, want, shell)
	}
	code, _, errOut := run(t, "", "completion", "tcsh")
	assert.NotEqual(t, cmdutil.ExitOK, code)
	assert.Contains(t, errOut, "tcsh")
}

// TestCompletionOffersChoices checks that shell completion offers the
// values of every enumerated flag, as the commands accept them.
func TestCompletionOffersChoices(t *testing.T) {
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"--compression"}, []string{"none", "gzip", "snappy", "lz4", "zstd"}},
		{[]string{"--acks"}, []string{"all", "-1", "1", "0"}},
		{[]string{"--format"}, []string{"lines", "json", "file"}},
		{[]string{"--partitioner"}, []string{"murmur2", "round-robin", "random", "crc32", "consistent", "fnv1a"}},
		{[]string{"--sasl-mechanism"}, []string{"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "GSSAPI", "OAUTHBEARER", "AWS_MSK_IAM"}},
		{[]string{"--log-level"}, []string{"trace", "debug", "info", "warn", "error", "disabled"}},
		{[]string{"--output"}, []string{"text", "json", "none"}},
		// --progress alone is --progress=always: its values complete after '='.
		{[]string{"--progress="}, []string{"auto", "always", "never"}},
		{[]string{"check", "--output"}, []string{"text", "json"}},
		{[]string{"metadata", "--sasl-mechanism"}, []string{"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "GSSAPI", "OAUTHBEARER", "AWS_MSK_IAM"}},
	}
	for _, tt := range tests {
		args := append([]string{"__complete"}, tt.args...)
		if !strings.HasSuffix(tt.args[len(tt.args)-1], "=") {
			args = append(args, "") // the word being completed
		}
		code, out, errOut := run(t, "", args...)
		require.Equal(t, cmdutil.ExitOK, code, errOut)
		got := strings.Split(strings.TrimSpace(out), "\n")
		require.NotEmpty(t, got)
		assert.Equal(t, tt.want, got[:len(got)-1], "%v", tt.args) // the last line is cobra's directive
	}
	for _, tt := range tests[:len(tests)-2] {
		for _, v := range tt.want {
			// every value offered is one the command takes
			args := []string{"-t", "t", "--dry-run", "--partitions", "1", strings.TrimSuffix(tt.args[0], "=") + "=" + v}
			switch {
			case v == "GSSAPI":
				args = append(args, kerberosArgs(t)...)
			case tt.args[0] == "--sasl-mechanism":
				args = append(args, "--sasl-username", "u", "--sasl-password", "p")
			}
			code, _, errOut := run(t, "x\n", args...)
			assert.NotEqual(t, cmdutil.ExitUsage, code, "%v: %s", args, errOut)
		}
	}
}

func TestFileNamedLikeASubcommand(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"check", "completion", "metadata"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte("a\nb\n"), 0o600))
		code, out, errOut := run(t, "", "-t", "t", "--dry-run", "--partitions", "2", filepath.Join(dir, name))
		assert.Equal(t, cmdutil.ExitOK, code, errOut)
		assert.Len(t, strings.Split(strings.TrimSpace(out), "\n"), 2, name)
	}
}

// TestSubcommandsTakeOtherToolsConnectionFlags: metadata and check take
// kafka-console-producer's and kcat's names of the connection options
// too.
func TestSubcommandsTakeOtherToolsConnectionFlags(t *testing.T) {
	for _, args := range [][]string{
		{"metadata", "--bootstrap-server", "127.0.0.1:1", "--timeout", "200ms"},
		{"metadata", "--broker-list", "127.0.0.1:1", "--command-property", "client.id=x", "--timeout", "200ms"},
		{"check", "-t", "t", "--bootstrap-server", "127.0.0.1:1", "-F", "", "--timeout", "200ms"},
	} {
		code, _, errOut := run(t, "", args...)
		assert.Equal(t, cmdutil.ExitFailed, code, "%v: an unreachable cluster, not a usage error: %s", args, errOut)
	}
}

// kerberosArgs are the GSSAPI options with a krb5.conf and a keytab of
// their own (no KDC is asked before a session starts).
func kerberosArgs(t *testing.T) []string {
	t.Helper()
	dir := t.TempDir()
	conf := filepath.Join(dir, "krb5.conf")
	require.NoError(t, os.WriteFile(conf, []byte("[libdefaults]\n default_realm = EXAMPLE.COM\n"), 0o600))
	kt := keytab.New()
	require.NoError(t, kt.AddEntry("client", "EXAMPLE.COM", "pw", time.Now(), 1, etypeID.AES256_CTS_HMAC_SHA1_96))
	b, err := kt.Marshal()
	require.NoError(t, err)
	path := filepath.Join(dir, "client.keytab")
	require.NoError(t, os.WriteFile(path, b, 0o600))
	return []string{"--kerberos-config", conf, "--kerberos-keytab", path}
}
