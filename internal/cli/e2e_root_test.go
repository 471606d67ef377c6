package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/kafkatest"
	"github.com/kproduce/kproduce/pkg/network/networktest"
)

// TestE2ETypoSuggestions: a misspelt flag, another tool's flag, a
// misspelt environment variable and a misspelt subcommand each say what
// was meant; nothing is produced on a usage error.
func TestE2ETypoSuggestions(t *testing.T) {
	c := kafkatest.ProducerCluster(t)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-t", "t", "--brokres", kafkatest.Brokers(c)}, "unknown flag: --brokres; did you mean --brokers?"},
		{[]string{"-t", "t", "--compresion", "gzip"}, "did you mean --compression?"},
		{[]string{"-t", "t", "--bootstrap-servers", kafkatest.Brokers(c)}, "did you mean --bootstrap-server?"},
		{[]string{"-C", "-t", "t"}, "kproduce only produces"},
		{[]string{"-L"}, "kproduce metadata"},
		{[]string{"metdata"}, `"metdata" is neither a file nor a subcommand; did you mean kproduce metadata?`},
		{[]string{"-t", "t", "chekc"}, "did you mean kproduce check?"},
		// Java's single-dash -help: not kcat's consumer flag -e
		{[]string{"-t", "t", "-help"}, "unknown shorthand flag: 'e' in -elp; did you mean --help? (a long flag takes two dashes)"},
		{[]string{"perf", "-help"}, "did you mean --help?"},
		{[]string{"-version"}, "did you mean --version?"},
		// the subcommand's own flags are unknown to the produce command
		{[]string{"pref", "--topic", "t", "--num-records", "10", "--record-size", "10"},
			`unknown flag: --num-records; "pref" is not a subcommand: did you mean kproduce perf?`},
	}
	for _, tt := range tests {
		res := runKproduce(t, strings.NewReader("x\n"), tt.args...)
		assert.Equal(t, cmdutil.ExitUsage, res.Code, "%v: %s", tt.args, res.Stderr)
		assert.Contains(t, res.Stderr, tt.want, "%v", tt.args)
	}
	kafkatest.RequireEmpty(t, c, "t")

	t.Setenv("KPRODUCE_BROKER", networktest.ClosedAddr(t))
	t.Setenv("KPRODUCE_LINGR", "1s")
	res := produceTo(t, c, strings.NewReader("y\n"), "-t", "t")
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	assert.Contains(t, res.Stderr, "KPRODUCE_BROKER is not a kproduce option; ignored (did you mean KPRODUCE_BROKERS?)")
	assert.Contains(t, res.Stderr, "(did you mean KPRODUCE_LINGER?)")
	kafkatest.ConsumeExactly(t, c, "t", 1)
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

// TestReadmeCompletionNeedsBashCompletion: the README says what
// `source <(kproduce completion bash)` needs.
func TestReadmeCompletionNeedsBashCompletion(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	_, after, ok := strings.Cut(string(readme), "`source <(kproduce completion bash)`")
	require.True(t, ok)
	para, _, _ := strings.Cut(after, "\n\n")
	assert.Contains(t, para, "needs the bash-completion package")
}

// TestE2ERootFileNamedLikeSubcommand: a file named check is given as a
// path.
func TestE2ERootFileNamedLikeSubcommand(t *testing.T) {
	c := kafkatest.NewCluster(t, kfake.NumBrokers(3), kfake.SeedTopics(2, "u"))
	dir := t.TempDir()
	path := kafkatest.WriteFile(t, dir, "check", []byte("a\nb\n"))
	res := runKproduce(t, nil, "-b", kafkatest.Brokers(c), "-t", "u", "-o", "none", path)
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	assert.Len(t, kafkatest.ConsumeAll(t, c.ListenAddrs(), "u", 2), 2)
}

// TestHelpListsSubcommands: kproduce --help lists check and metadata.
func TestHelpListsSubcommands(t *testing.T) {
	help := runKproduce(t, nil, "--help")
	assert.Regexp(t, `(?m)^  check +`, help.Stdout)
	assert.Regexp(t, `(?m)^  metadata +`, help.Stdout)
}
