package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/cli/config/javaprops"
)

// withDefaultConfig writes ~/.config/kproduce/config.yaml under a fresh
// XDG_CONFIG_HOME (the test cannot run in parallel) and returns its path.
func withDefaultConfig(t *testing.T, text string) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	require.NoError(t, os.Mkdir(filepath.Join(dir, "kproduce"), 0o700))
	return e2eWriteFile(t, filepath.Join(dir, "kproduce"), "config.yaml", []byte(text))
}

// TestE2EProfilesAndDefaultConfig: the default config file is read
// without --config; its profile key, KPRODUCE_PROFILE and --profile pick
// the cluster, each over the one before.
func TestE2EProfilesAndDefaultConfig(t *testing.T) { // not parallel: it sets the environment
	c := e2eCluster(t)
	withDefaultConfig(t, fmt.Sprintf(`brokers: [%s]
bootstrap-timeout: 2s
profile: local
profiles:
  local:
    brokers: [%s]
    topic: from-local
  stage:
    brokers: [%s]
    topic: from-stage
`, closedAddr(t), brokersFlag(c), closedAddr(t)))
	res := runKproduce(t, strings.NewReader("a\n"))
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	consumeExactly(t, c, "from-local", 1)

	t.Setenv("KPRODUCE_PROFILE", "stage")
	res = runKproduce(t, strings.NewReader("b\n"))
	assert.Equal(t, cmdutil.ExitFailed, res.Code, "the stage profile's cluster is down: %s", res.Stderr)
	res = runKproduce(t, strings.NewReader("c\n"), "--profile", "local", "-t", "flag-topic")
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	consumeExactly(t, c, "flag-topic", 1)
	requireTopicEmpty(t, c, "from-stage")

	res = runKproduce(t, strings.NewReader("d\n"), "--profile", "prod")
	assert.Equal(t, cmdutil.ExitUsage, res.Code)
	assert.Contains(t, res.Stderr, `no profile "prod": the profiles are local, stage`)
}

// TestE2EConfigCommand: kproduce config prints every setting with where
// it came from, the password redacted.
func TestE2EConfigCommand(t *testing.T) {
	path := withDefaultConfig(t, "client-id: from-file\nprofile: p\nprofiles:\n  p:\n    sasl-password: hunter2\n    brokers: [p:9092]\n")
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

// TestE2ETypoSuggestions: a misspelt flag, another tool's flag, a
// misspelt environment variable and a misspelt subcommand each say what
// was meant; nothing is produced on a usage error.
func TestE2ETypoSuggestions(t *testing.T) {
	c := e2eCluster(t)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-t", "t", "--brokres", brokersFlag(c)}, "unknown flag: --brokres; did you mean --brokers?"},
		{[]string{"-t", "t", "--compresion", "gzip"}, "did you mean --compression?"},
		{[]string{"-t", "t", "--bootstrap-servers", brokersFlag(c)}, "did you mean --bootstrap-server?"},
		{[]string{"-C", "-t", "t"}, "kproduce only produces"},
		{[]string{"-L"}, "kproduce metadata"},
		{[]string{"metdata"}, `"metdata" is neither a file nor a subcommand; did you mean kproduce metadata?`},
		{[]string{"-t", "t", "chekc"}, "did you mean kproduce check?"},
	}
	for _, tt := range tests {
		res := runKproduce(t, strings.NewReader("x\n"), tt.args...)
		assert.Equal(t, cmdutil.ExitUsage, res.Code, "%v: %s", tt.args, res.Stderr)
		assert.Contains(t, res.Stderr, tt.want, "%v", tt.args)
	}
	requireTopicEmpty(t, c, "t")

	t.Setenv("KPRODUCE_BROKER", closedAddr(t))
	t.Setenv("KPRODUCE_LINGR", "1s")
	res := produceTo(t, c, strings.NewReader("y\n"), "-t", "t")
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	assert.Contains(t, res.Stderr, "KPRODUCE_BROKER is not a kproduce option; ignored (did you mean KPRODUCE_BROKERS?)")
	assert.Contains(t, res.Stderr, "(did you mean KPRODUCE_LINGER?)")
	consumeExactly(t, c, "t", 1)
}

// TestE2ETopicFlagBeatsRecordTopic: copying a topic with kcat -C -J |
// kproduce -f json -t dst writes every record into dst, never back into
// the source, with one warning; each keeps its key, value, headers and
// partition.
func TestE2ETopicFlagBeatsRecordTopic(t *testing.T) {
	t.Parallel()
	c := e2eCluster(t)
	var in strings.Builder
	for i := range 20 {
		fmt.Fprintf(&in, `{"topic":"src","partition":%d,"offset":%d,"tstype":"create","ts":1700000000000,"broker":1,"headers":["h","%d"],"key":"k%d","payload":"v%d"}`+"\n",
			i%6, i, i, i, i)
	}
	res := produceTo(t, c, strings.NewReader(in.String()), "-f", "json", "-t", "dst")
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	assert.Equal(t, 1, strings.Count(res.Stderr, "WRN"), res.Stderr)
	assert.Contains(t, res.Stderr, "records name their own topic (src first); -t dst was given, so every record goes to dst")
	requireTopicEmpty(t, c, "src")
	for _, r := range consumeExactly(t, c, "dst", 20) {
		var i int
		_, err := fmt.Sscanf(string(r.Value), "v%d", &i)
		require.NoError(t, err)
		assert.Equal(t, fmt.Sprintf("k%d", i), string(r.Key))
		assert.EqualValues(t, i%6, r.Partition, "the record's partition is kept")
		assert.Equal(t, []string{fmt.Sprintf("h=%d", i)}, headerList(r))
	}
}

// TestE2ECheckJSONOnFailure: kproduce check -o json prints exactly one
// JSON object, with "ok": false and the error, when the check cannot
// start: a missing topic, an unreachable cluster, a usage error.
func TestE2ECheckJSONOnFailure(t *testing.T) {
	t.Parallel()
	c := e2eCluster(t)
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-b", brokersFlag(c), "-t", "missing", "--timeout", "5s"}, cmdutil.ExitFailed, "UNKNOWN_TOPIC_OR_PARTITION"},
		{[]string{"-b", closedAddr(t), "-t", "t", "--timeout", "1s"}, cmdutil.ExitFailed, "unreachable"},
		{[]string{"-b", brokersFlag(c)}, cmdutil.ExitUsage, "a topic is required"},
		{[]string{"-b", brokersFlag(c), "-t", "t", "--count", "0"}, cmdutil.ExitUsage, "--count"},
		{[]string{"-t", "t", "--nope"}, cmdutil.ExitUsage, "unknown flag: --nope"},
	}
	for _, tt := range tests {
		res := runKproduce(t, nil, append([]string{"check", "-o", "json"}, tt.args...)...)
		assert.Equal(t, tt.code, res.Code, "%v: %s", tt.args, res.Stderr)
		require.Len(t, lines(res.Stdout), 1, "%v: exactly one JSON object: %q", tt.args, res.Stdout)
		var rep struct {
			OK         *bool  `json:"ok"`
			Error      string `json:"error"`
			Partitions []any  `json:"partitions"`
		}
		require.NoError(t, json.Unmarshal([]byte(res.Stdout), &rep), res.Stdout)
		require.NotNil(t, rep.OK)
		assert.False(t, *rep.OK)
		assert.Contains(t, rep.Error, tt.want)
		assert.NotNil(t, rep.Partitions)
	}
}

// TestE2EVersionAndPropertyHelp: --version and kproduce version show the
// build; -X help lists every name of the property table.
func TestE2EVersionAndPropertyHelp(t *testing.T) {
	t.Parallel()
	res := runKproduce(t, nil, "--version")
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	assert.Regexp(t, `^kproduce \S+\n(commit .*\n)?(date .*\n)?go +go1\.`, res.Stdout)
	res2 := runKproduce(t, nil, "version")
	assert.Equal(t, res.Stdout, res2.Stdout)
	res = runKproduce(t, nil, "version", "-o", "json")
	var v struct{ Version, Go string }
	require.NoError(t, json.Unmarshal([]byte(res.Stdout), &v))
	assert.NotEmpty(t, v.Version)

	for _, flag := range []string{"help", "list"} {
		res = runKproduce(t, nil, "-X", flag)
		require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
		for _, row := range javaprops.Table() {
			for _, name := range row.Names() {
				assert.Contains(t, res.Stdout, name, "-X %s", flag)
			}
			if row.Option != "" {
				assert.Contains(t, res.Stdout, "--"+strings.Split(row.Option, ",")[0])
			}
		}
	}
	res = runKproduce(t, nil, "-X", "dump")
	assert.Equal(t, cmdutil.ExitUsage, res.Code)
	assert.Contains(t, res.Stderr, "kproduce config")
}

// TestE2EHelpNamesOtherTools: the help names the other tools' habits.
func TestE2EHelpNamesOtherTools(t *testing.T) {
	t.Parallel()
	res := runKproduce(t, nil, "--help")
	require.Equal(t, cmdutil.ExitOK, res.Code)
	for _, want := range []string{"-X help", "--bootstrap-server", "parse.key=true", "~/.config/kproduce/config.yaml", "--profile", "kproduce config"} {
		assert.Contains(t, res.Stdout, want)
	}
	_, err := os.Stat(filepath.Join("..", "..", "docs", "coming-from.md"))
	assert.NoError(t, err, "the help points to docs/coming-from.md")
}
