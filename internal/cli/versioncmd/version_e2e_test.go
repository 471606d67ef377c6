package versioncmd_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/cli"
	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/kafkatest"
)

// TestE2EVersion: kproduce --version and kproduce version show the same
// build; -o json shows it as an object.
func TestE2EVersion(t *testing.T) {
	t.Parallel()
	run := func(args ...string) kafkatest.Result {
		return kafkatest.Run(t, context.Background(), cli.Execute, nil, args...)
	}
	res := run("--version")
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	assert.Regexp(t, `^kproduce \S+\n(commit .*\n)?(date .*\n)?go +go1\.`, res.Stdout)
	res2 := run("version")
	assert.Equal(t, res.Stdout, res2.Stdout)
	res = run("version", "-o", "json")
	var v struct{ Version, Go string }
	require.NoError(t, json.Unmarshal([]byte(res.Stdout), &v))
	assert.NotEmpty(t, v.Version)
}
