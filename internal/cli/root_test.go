package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

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
