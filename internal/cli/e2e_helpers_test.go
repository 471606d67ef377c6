package cli

import (
	"context"
	"io"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kproduce/kproduce/internal/kafkatest"
)

// The tests of this package run the whole command tree in-process, for
// what belongs to the tree rather than to one command: the root's flags
// and help, suggestions for typos, completion, a file named like a
// subcommand, what every command keeps secret. Each command's own
// behaviour is tested beside it (producecmd, checkcmd, metadatacmd,
// configcmd, versioncmd).

// runKproduce runs kproduce in-process with stdin and args, as main does;
// a run that does not end within kafkatest.RunDeadline fails the test.
func runKproduce(t testing.TB, stdin io.Reader, args ...string) kafkatest.Result {
	t.Helper()
	return kafkatest.Run(t, context.Background(), Execute, stdin, args...)
}

// produceTo runs kproduce against cluster c with stdin and args, adding -b.
func produceTo(t testing.TB, c *kfake.Cluster, stdin io.Reader, args ...string) kafkatest.Result {
	t.Helper()
	return runKproduce(t, stdin, append([]string{"-b", kafkatest.Brokers(c)}, args...)...)
}
