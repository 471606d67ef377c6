package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
)

func TestRateOptionValues(t *testing.T) {
	for _, ok := range []struct {
		in   string
		want float64
	}{{"0", 0}, {"50", 50}, {"0.5", 0.5}, {" 1e3 ", 1000}} {
		assert.Equal(t, ok.want, mustOptions(t, "-t", "t", "--rate", ok.in).Rate, ok.in)
	}
	for _, bad := range []string{"-1", "x", "NaN", "Inf", ""} {
		_, _, err := parseOptions(t, "-t", "t", "--rate", bad)
		require.Error(t, err, bad)
		assert.Contains(t, err.Error(), "--rate", bad)
		assert.True(t, cmdutil.IsUsageError(err), bad)
	}
}

func TestTransactionJavaProperties(t *testing.T) {
	o := mustOptions(t, "-t", "t", "-X", "transactional.id=from-java", "-X", "transaction.timeout.ms=5000")
	assert.Equal(t, "from-java", o.TransactionalID)
	assert.Equal(t, 5*time.Second, o.TransactionTimeout)
	assert.True(t, o.Idempotence)
	o = mustOptions(t, "-t", "t")
	assert.Equal(t, "", o.TransactionalID)
	assert.Equal(t, time.Minute, o.TransactionTimeout)
}
