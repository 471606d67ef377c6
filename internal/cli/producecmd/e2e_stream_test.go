package producecmd_test

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/kafkatest"
)

// TestE2EStreamingReportsWhileStdinOpen checks that a line is produced and
// reported while stdin stays open: each report must appear before the
// next line is written and before stdin is closed.
func TestE2EStreamingReportsWhileStdinOpen(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"lines", "json"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			c := kafkatest.ProducerCluster(t)
			pr, pw := io.Pipe()
			t.Cleanup(func() { _ = pw.Close() })
			run := startKproduce(context.Background(), pr, "-b", kafkatest.Brokers(c), "-t", "t", "-f", format, "--linger", "50ms")
			first, second := "first\n", "second\n"
			if format == "json" {
				first, second = `{"value":"first"}`+"\n", `{"value":"second"}`+"\n"
			}
			writeWithin(t, pw, first)
			got := run.WaitStdout(t, 1, streamWait)
			assert.Regexp(t, `^t/\d@0$`, got[0])
			writeWithin(t, pw, second)
			got = run.WaitStdout(t, 2, streamWait)
			assert.Regexp(t, `^t/\d@\d$`, got[1])
			require.NoError(t, pw.Close())
			require.Equal(t, 0, run.Wait(t, streamWait), run.Stderr.String())
			recs := kafkatest.ByValue(t, kafkatest.ConsumeExactly(t, c, "t", 2))
			assert.Contains(t, recs, "first")
			assert.Contains(t, recs, "second")
		})
	}
}

// writeWithin writes s to w, failing the test if the write blocks longer
// than streamWait (nobody reading the pipe).
func writeWithin(t testing.TB, w io.Writer, s string) {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := io.WriteString(w, s)
		done <- err
	}()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(streamWait):
		t.Fatalf("writing %q to stdin blocked for %s", s, streamWait)
	}
}
