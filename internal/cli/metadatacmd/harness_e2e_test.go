package metadatacmd_test

import (
	"context"
	"encoding/json"
	"io"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kproduce/kproduce/internal/cli"
	"github.com/kproduce/kproduce/internal/kafkatest"
)

// The _e2e_test files run kproduce metadata as a user does, through
// internal/cli's Execute, against kfake clusters, with franz-go's view of
// the cluster as the oracle. The package's own tests (metadata_test.go)
// build the command alone.

// runKproduce runs kproduce in-process with stdin and args, as main does.
func runKproduce(t testing.TB, stdin io.Reader, args ...string) kafkatest.Result {
	t.Helper()
	return kafkatest.Run(t, context.Background(), cli.Execute, stdin, args...)
}

// adminCluster starts the subcommands' test cluster: 3 brokers, the
// 6-partition topic "t" and the 2-partition topic "u", no automatic topic
// creation.
func adminCluster(t *testing.T, opts ...kfake.Opt) *kfake.Cluster {
	t.Helper()
	return kafkatest.NewCluster(t, append([]kfake.Opt{kfake.NumBrokers(3), kfake.SeedTopics(6, "t"), kfake.SeedTopics(2, "u")}, opts...)...)
}

// decodeMetadata decodes kproduce metadata -o json.
func decodeMetadata(t *testing.T, out string) jsonMetadata {
	t.Helper()
	var v jsonMetadata
	require.NoError(t, json.Unmarshal([]byte(out), &v), out)
	return v
}
