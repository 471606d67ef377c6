package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
)

// configSetting is one row of kproduce config --json.
type configSetting struct{ Name, Value, Origin string }

// configSettings runs kproduce config --json with args and returns its
// settings by name.
func configSettings(t *testing.T, args ...string) map[string]configSetting {
	t.Helper()
	res := runKproduce(t, nil, append([]string{"config", "--json"}, args...)...)
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	var d struct{ Settings []configSetting }
	require.NoError(t, json.Unmarshal([]byte(res.Stdout), &d))
	m := map[string]configSetting{}
	for _, s := range d.Settings {
		m[s.Name] = s
	}
	return m
}

// TestE2EConfigShowsDerivedValues: kproduce config shows the value a run
// uses, not the default, where a rule derives it from another setting,
// with that cause; and the run uses what config shows (no producer id in
// the batches of a run with acks=1).
func TestE2EConfigShowsDerivedValues(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"-X", "acks=1"}, {"--request-required-acks", "1"}, {"-a", "1"}} {
		s := configSettings(t, args...)
		assert.Equal(t, configSetting{"idempotence", "false", "derived: acks=1"}, s["idempotence"], "%v", args)
	}
	assert.Equal(t, configSetting{"idempotence", "false", "derived: retries=0"}, configSettings(t, "--retries", "0")["idempotence"])
	assert.Equal(t, configSetting{"idempotence", "false", "flag --idempotence"},
		configSettings(t, "-a", "1", "--idempotence=false")["idempotence"], "given, not derived")
	assert.Equal(t, configSetting{"idempotence", "true", "default"}, configSettings(t)["idempotence"])
	assert.Equal(t, configSetting{"request-timeout", "2.995s", "derived: delivery-timeout 3s - linger 5ms"},
		configSettings(t, "--delivery-timeout", "3s")["request-timeout"])

	res := runKproduce(t, nil, "config", "-X", "acks=1")
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	assert.Regexp(t, regexp.MustCompile(`(?m)^idempotence +false +derived: acks=1$`), res.Stdout)

	c := e2eCluster(t)
	run := produceTo(t, c, strings.NewReader("a\nb\n"), "-t", "t", "-X", "acks=1")
	require.Equal(t, cmdutil.ExitOK, run.Code, run.Stderr)
	for _, r := range consumeExactly(t, c, "t", 2) {
		assert.EqualValues(t, -1, r.ProducerID, "idempotence off, as config showed")
	}
	run = produceTo(t, c, strings.NewReader("c\n"), "-t", "u")
	require.Equal(t, cmdutil.ExitOK, run.Code, run.Stderr)
	assert.GreaterOrEqual(t, consumeExactly(t, c, "u", 1)[0].ProducerID, int64(0), "idempotent by default")
}

// TestE2EProgressAlone: --progress alone is --progress always (a bar
// drawn into a pipe too), before a FILE, before another flag, or last;
// --progress never and --progress=never still draw nothing.
func TestE2EProgressAlone(t *testing.T) {
	t.Parallel()
	c := e2eCluster(t)
	f := e2eWriteFile(t, t.TempDir(), "in.txt", []byte(tenByteLines(20)))
	for _, args := range [][]string{{"--progress", f}, {"--progress", "--stats=false", f}, {f, "--progress"}, {"--progress", "always", f}} {
		res := produceTo(t, c, nil, append([]string{"-t", "t", "-o", "none"}, args...)...)
		require.Equal(t, cmdutil.ExitOK, res.Code, "%v: %s", args, res.Stderr)
		screen := screenLines(res.Stderr)
		require.NotEmpty(t, screen, "%v: a bar is drawn", args)
		assert.Contains(t, screen[len(screen)-1], "20 delivered, 0 failed", "%v", args)
	}
	for _, args := range [][]string{{"--progress", "never", f}, {"--progress=never", f}} {
		res := produceTo(t, c, nil, append([]string{"-t", "t", "-o", "none"}, args...)...)
		require.Equal(t, cmdutil.ExitOK, res.Code, "%v: %s", args, res.Stderr)
		assert.Empty(t, res.Stderr, "%v", args)
	}
	s := configSettings(t, "--progress")
	assert.Equal(t, configSetting{"progress", "always", "flag --progress"}, s["progress"])
	assert.Equal(t, "never", configSettings(t, "--progress", "never")["progress"].Value)
}
