package checkcmd_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/kafkatest"
	"github.com/kproduce/kproduce/pkg/network/networktest"
)

// TestE2ECheckJSONOnFailure: kproduce check -o json prints exactly one
// JSON object, with "ok": false and the error, when the check cannot
// start: a missing topic, an unreachable cluster, a usage error.
func TestE2ECheckJSONOnFailure(t *testing.T) {
	t.Parallel()
	c := kafkatest.AdminCluster(t)
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-b", kafkatest.Brokers(c), "-t", "missing", "--timeout", "5s"}, cmdutil.ExitFailed, "UNKNOWN_TOPIC_OR_PARTITION"},
		{[]string{"-b", networktest.ClosedAddr(t), "-t", "t", "--timeout", "1s"}, cmdutil.ExitFailed, "unreachable"},
		{[]string{"-b", kafkatest.Brokers(c)}, cmdutil.ExitUsage, "a topic is required"},
		{[]string{"-b", kafkatest.Brokers(c), "-t", "t", "--count", "0"}, cmdutil.ExitUsage, "--count"},
		{[]string{"-t", "t", "--nope"}, cmdutil.ExitUsage, "unknown flag: --nope"},
	}
	for _, tt := range tests {
		res := runKproduce(t, nil, append([]string{"check", "-o", "json"}, tt.args...)...)
		assert.Equal(t, tt.code, res.Code, "%v: %s", tt.args, res.Stderr)
		require.Len(t, kafkatest.Lines(res.Stdout), 1, "%v: exactly one JSON object: %q", tt.args, res.Stdout)
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

func TestE2ECheckUsage(t *testing.T) {
	for _, args := range [][]string{
		{"check"},
		{"check", "-t", "t", "--count", "0"},
		{"check", "-t", "t", "--partitions", "0"},
		{"check", "-t", "t", "-o", "none"},
		{"check", "-t", "t", "--timeout", "0s"},
		{"check", "-t", "t", "--sasl-mechanism", "GSSAPI"},
	} {
		res := runKproduce(t, nil, args...)
		assert.Equal(t, cmdutil.ExitUsage, res.Code, "%v: %s", args, res.Stderr)
		assert.Contains(t, res.Stderr, "error: ", args)
		assert.Contains(t, res.Stderr, "Run 'kproduce check --help' for usage.", args)
	}
}
