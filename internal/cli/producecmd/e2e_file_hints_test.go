package producecmd_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/kafkatest"
)

// TestFileArgumentReadAsTopicOrVerb: rpk's habit of naming the topic as an
// argument, and other tools' verbs (produce, topic), reach kproduce as
// FILE arguments; when such a file does not exist, the usage error says
// how the word was read and what to write instead. A file that exists,
// or a word that cannot be a topic, gets the plain messages.
func TestFileArgumentReadAsTopicOrVerb(t *testing.T) {
	c := oneBrokerCluster(t)
	t.Chdir(t.TempDir())
	for _, tc := range []struct {
		args       []string
		want, dont string
	}{
		{[]string{"test"}, `a topic is required: "test" was read as an input file, and there is no such file: to produce to topic test, give -t test`, ""},
		{[]string{"orders.v2", "-K", ":"}, `to produce to topic orders.v2, give -t orders.v2`, ""},
		{[]string{"produce"}, `a topic is required: "produce" was read as an input file: kproduce has no produce subcommand, it produces without one`, "give -t produce"},
		{[]string{"topic", "produce", "t"}, `"topic" was read as an input file: kproduce has no topic subcommand`, "give -t"},
		{[]string{"produce", "-t", "t"}, `input: open produce: no such file or directory; "produce" was read as an input file: kproduce has no produce subcommand`, ""},
		{[]string{"bad topic!"}, "a topic is required (only json records", "was read as"},
		{[]string{"-t", "t", "nothere"}, "input: open nothere: no such file or directory", "was read as"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			r := runKproduceCtx(t, t.Context(), strings.NewReader("hi\n"), append([]string{"-b", kafkatest.Brokers(c)}, tc.args...)...)
			assert.Equal(t, cmdutil.ExitUsage, r.Code, r.Stderr)
			assert.Contains(t, r.Stderr, tc.want)
			if tc.dont != "" {
				assert.NotContains(t, r.Stderr, tc.dont)
			}
			assert.Empty(t, r.Stdout)
		})
	}
	require.NoError(t, os.WriteFile(filepath.Join(".", "test"), []byte("a\n"), 0o600))
	r := runKproduceCtx(t, t.Context(), nil, "-b", kafkatest.Brokers(c), "test")
	assert.Equal(t, cmdutil.ExitUsage, r.Code)
	assert.Contains(t, r.Stderr, "a topic is required (only json records", "a file that exists is an input")
	assert.NotContains(t, r.Stderr, "was read as")
	assert.Zero(t, kafkatest.PartitionEnd(t, c.ListenAddrs(), "test", 0)+kafkatest.PartitionEnd(t, c.ListenAddrs(), "t", 0), "nothing produced")
}
