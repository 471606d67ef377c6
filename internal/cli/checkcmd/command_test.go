package checkcmd

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/kafkatest"
	"github.com/kproduce/kproduce/pkg/admin"
)

// TestNewCommandResolvesOptions: the flags become the Options runF gets,
// with the documented defaults where none is given.
func TestNewCommandResolvesOptions(t *testing.T) {
	o, printed, err := kafkatest.Resolve(t, NewCommand, "-b", "h1:9092,h2:9092", "-t", "smoke", "--count", "3", "--timeout", "30s", "-o", "json",
		"--create", "--partitions", "6", "--replication-factor", "3")
	require.NoError(t, err)
	require.NotNil(t, o)
	assert.Empty(t, printed)
	assert.Equal(t, []string{"h1:9092", "h2:9092"}, o.Connection.Brokers)
	assert.Equal(t, "smoke", o.Connection.Topic)
	assert.Equal(t, "json", o.Output)
	assert.Equal(t, 30*time.Second, o.Timeout)
	assert.EqualValues(t, 3, o.Count)
	assert.True(t, o.Create)
	assert.Equal(t, admin.TopicSpec{Partitions: 6, ReplicationFactor: 3}, o.Spec)

	o, _, err = kafkatest.Resolve(t, NewCommand, "-t", "smoke")
	require.NoError(t, err)
	assert.Equal(t, "text", o.Output)
	assert.Equal(t, cmdutil.DefaultSubcommandTimeout, o.Timeout)
	assert.EqualValues(t, 1, o.Count)
	assert.False(t, o.Create)
	assert.Equal(t, admin.TopicSpec{Partitions: -1, ReplicationFactor: -1}, o.Spec, "the broker's defaults")
}

// TestNewCommandRefusesBadOptions: a bad option is a usage error that
// names it, returned for the caller to print (nothing printed yet) before
// anything is asked of a cluster.
func TestNewCommandRefusesBadOptions(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "a topic is required"},
		{[]string{"-t", "t", "--count", "0"}, "--count"},
		{[]string{"-t", "t", "--partitions", "0"}, "--partitions"},
		{[]string{"-t", "t", "--replication-factor", "0"}, "--replication-factor"},
		{[]string{"-t", "t", "-o", "none"}, "none"},
		{[]string{"-t", "t", "--timeout", "0s"}, "--timeout"},
		{[]string{"-t", "t", "extra"}, `unexpected argument "extra"`},
	} {
		o, printed, err := kafkatest.Resolve(t, NewCommand, tc.args...)
		assert.Nil(t, o, "%v: runF is not called", tc.args)
		require.Error(t, err, "%v", tc.args)
		assert.True(t, cmdutil.IsUsageError(err), "%v: %v is a usage error", tc.args, err)
		assert.False(t, cmdutil.IsReported(err), "%v", tc.args)
		assert.Equal(t, cmdutil.ExitUsage, cmdutil.ExitCode(err))
		assert.Contains(t, err.Error(), tc.want, "%v", tc.args)
		assert.Empty(t, printed, "%v", tc.args)
	}
}

// TestNewCommandJSONReportOnBadOptions: with -o json a check that cannot
// start still prints its one JSON object, ok false with the error.
func TestNewCommandJSONReportOnBadOptions(t *testing.T) {
	o, printed, err := kafkatest.Resolve(t, NewCommand, "-o", "json", "--count", "0", "-t", "t")
	assert.Nil(t, o)
	require.Error(t, err)
	assert.True(t, cmdutil.IsUsageError(err))
	var rep map[string]any
	require.NoError(t, json.Unmarshal([]byte(printed), &rep), printed)
	assert.Equal(t, "t", rep["topic"])
	assert.Equal(t, false, rep["ok"])
	assert.Equal(t, err.Error(), rep["error"])
	assert.Equal(t, []any{}, rep["partitions"])
}
