package metadatacmd

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/kafkatest"
)

// TestNewCommandResolvesOptions: the flags (and other tools' names for
// them) become the Options runF gets, with the documented defaults.
func TestNewCommandResolvesOptions(t *testing.T) {
	o, printed, err := kafkatest.Resolve(t, NewCommand, "--bootstrap-server", "h1:9092", "-t", "events", "-o", "json", "--timeout", "3s")
	require.NoError(t, err)
	require.NotNil(t, o)
	assert.Empty(t, printed)
	assert.Equal(t, []string{"h1:9092"}, o.Connection.Brokers)
	assert.Equal(t, "events", o.Connection.Topic)
	assert.Equal(t, "json", o.Output)
	assert.Equal(t, 3*time.Second, o.Timeout)

	o, _, err = kafkatest.Resolve(t, NewCommand)
	require.NoError(t, err)
	assert.Empty(t, o.Connection.Topic, "every topic")
	assert.Equal(t, "text", o.Output)
	assert.Equal(t, cmdutil.DefaultSubcommandTimeout, o.Timeout)
}

// TestNewCommandRefusesBadOptions: a bad option is a usage error naming
// it, returned for the caller to print, before any cluster is asked.
func TestNewCommandRefusesBadOptions(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-o", "yaml"}, "yaml"},
		{[]string{"--timeout", "soon"}, "--timeout"},
		{[]string{"extra"}, `unexpected argument "extra"`},
	} {
		o, printed, err := kafkatest.Resolve(t, NewCommand, tc.args...)
		assert.Nil(t, o, "%v: runF is not called", tc.args)
		require.Error(t, err, "%v", tc.args)
		assert.True(t, cmdutil.IsUsageError(err), "%v: %v is a usage error", tc.args, err)
		assert.False(t, cmdutil.IsReported(err), "%v", tc.args)
		assert.Contains(t, err.Error(), tc.want, "%v", tc.args)
		assert.Empty(t, printed, "%v", tc.args)
	}
}
