package producecmd_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/kafkatest"
)

// readme returns the repository's README.md.
func readme(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("../../../README.md")
	require.NoError(t, err)
	return string(data)
}

// shapeOf turns a line of sample output into a pattern of its shape: each
// number may be any number.
func shapeOf(line string) *regexp.Regexp {
	return regexp.MustCompile("^" + regexp.MustCompile(`\d+`).ReplaceAllString(regexp.QuoteMeta(line), `\d+`) + "$")
}

// TestE2EReadmeReportsAsPrinted: the README's quickstart output is what
// kproduce prints for the same command (a delivery is TOPIC/PARTITION@OFFSET,
// no position), and a failure names its input position as the README says.
func TestE2EReadmeReportsAsPrinted(t *testing.T) {
	t.Parallel()
	text := readme(t)
	assert.Contains(t, text, "each delivery as `TOPIC/PARTITION@OFFSET`, each\n  failure naming its input position (`file:line`)")
	_, sample, ok := strings.Cut(text, "`scripts/quickstart.sh` prints something like:\n\n```\n")
	require.True(t, ok, "the quickstart's sample output")
	sample, _, _ = strings.Cut(sample, "```")
	var reports []string
	for _, l := range kafkatest.Lines(sample) {
		if strings.HasPrefix(l, "test/") {
			reports = append(reports, l)
		}
	}
	require.Len(t, reports, 3)

	c := kafkatest.ProducerCluster(t)
	res := produceTo(t, c, strings.NewReader("hello\nkafka\nworld\n"), "-t", "test")
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	got := kafkatest.Lines(res.Stdout)
	require.Len(t, got, 3)
	for i, l := range got {
		assert.Regexp(t, shapeOf(reports[i]), l)
	}

	res = produceTo(t, c, strings.NewReader("ok\ntoo long\n"), "-t", "test", "--max-record-bytes", "4")
	assert.Equal(t, cmdutil.ExitFailed, res.Code)
	assert.Regexp(t, `^test/\d+@\d+\n$`, res.Stdout)
	assert.Regexp(t, `(?m)^error: -:2: test/-1: `, res.Stderr, "a failure names its position")
}
