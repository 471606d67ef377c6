package config

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/pkg/sender"
)

func TestIdempotenceAndAcks(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		env      map[string]string
		wantErr  string
		wantIdem bool
		wantAcks sender.Acks
	}{
		{name: "default: acks all, idempotent", wantIdem: true, wantAcks: sender.AllAcks},
		{name: "acks -1 is all", args: []string{"-a", "-1"}, wantIdem: true, wantAcks: sender.AllAcks},
		{name: "acks 1 turns idempotence off", args: []string{"-a", "1"}, wantAcks: sender.LeaderAck},
		{name: "acks 0 turns idempotence off", args: []string{"-a", "0"}, wantAcks: sender.NoAck},
		{name: "-X acks=0", args: []string{"-X", "acks=0"}, wantAcks: sender.NoAck},
		{name: "explicit idempotence with acks 1", args: []string{"-a", "1", "--idempotence"}, wantErr: "--idempotence needs --acks all"},
		{name: "explicit idempotence=true with acks 0", args: []string{"-a", "0", "--idempotence=true"}, wantErr: "--idempotence needs --acks all"},
		{name: "-X enable.idempotence with acks 1", args: []string{"-a", "1", "-X", "enable.idempotence=true"}, wantErr: "--idempotence needs --acks all"},
		{name: "env idempotence with acks 1", args: []string{"-a", "1"}, env: map[string]string{"KPRODUCE_IDEMPOTENCE": "true"}, wantErr: "--idempotence needs --acks all"},
		{name: "idempotence off with acks 1", args: []string{"-a", "1", "--idempotence=false"}, wantAcks: sender.LeaderAck},
		{name: "idempotence off with acks all", args: []string{"--idempotence=false"}, wantAcks: sender.AllAcks},
		{name: "max in flight 5 with idempotence", args: []string{"--max-in-flight", "5"}, wantIdem: true, wantAcks: sender.AllAcks},
		{name: "max in flight 6 with idempotence", args: []string{"--max-in-flight", "6"}, wantErr: "--max-in-flight 6 is more than 5"},
		{name: "max in flight 6 without idempotence", args: []string{"--max-in-flight", "6", "--idempotence=false"}, wantAcks: sender.AllAcks},
		{name: "max in flight 10 with acks 1", args: []string{"--max-in-flight", "10", "-a", "1"}, wantAcks: sender.LeaderAck},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			o, _, err := parseOptions(t, append([]string{"-t", "t"}, tt.args...)...)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.True(t, cmdutil.IsUsageError(err))
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantIdem, o.Idempotence)
			assert.Equal(t, tt.wantAcks, o.Acks)
		})
	}
}

func TestDeliveryTimeoutLowersRequestTimeout(t *testing.T) {
	o, stderr, err := parseOptions(t, "-t", "t", "--delivery-timeout", "3s")
	require.NoError(t, err)
	assert.Equal(t, 3*time.Second, o.DeliveryTimeout)
	assert.Equal(t, 3*time.Second-5*time.Millisecond, o.RequestTimeout)
	assert.Empty(t, stderr, "the default request timeout is lowered silently")

	o, stderr, err = parseOptions(t, "-t", "t", "--delivery-timeout", "3s", "--request-timeout", "10s")
	require.NoError(t, err)
	assert.Equal(t, 3*time.Second-5*time.Millisecond, o.RequestTimeout)
	assert.Contains(t, stderr, "request timeout lowered to 2.995s", "both set: a warning")

	o, stderr, err = parseOptions(t, "-t", "t", "--delivery-timeout", "40s", "--request-timeout", "30s", "--linger", "10s")
	require.NoError(t, err)
	assert.Equal(t, 30*time.Second, o.RequestTimeout, "fits: unchanged")
	assert.Empty(t, stderr)

	_, _, err = parseOptions(t, "-t", "t", "--delivery-timeout", "1s", "--linger", "1s")
	require.Error(t, err)
	assert.True(t, cmdutil.IsUsageError(err))
}

func TestUsageErrors(t *testing.T) {
	tests := map[string][]string{
		"unknown format":            {"-t", "t", "-f", "xml"},
		"unknown output":            {"-t", "t", "-o", "yaml"},
		"bad template":              {"-t", "t", "-o", "%q"},
		"unknown partitioner":       {"-t", "t", "--partitioner", "sticky"},
		"unknown compression":       {"-t", "t", "-z", "brotli"},
		"unknown acks":              {"-t", "t", "-a", "2"},
		"no topic":                  {},
		"no topic for file":         {"-f", "file"},
		"negative batch size":       {"-t", "t", "--batch-size", "-1"},
		"zero batch size":           {"-t", "t", "--batch-size", "0"},
		"huge batch size":           {"-t", "t", "--batch-size", "4GiB"},
		"negative buffer memory":    {"-t", "t", "--buffer-memory", "-5"},
		"negative max record bytes": {"-t", "t", "--max-record-bytes", "-1"},
		"zero max record bytes":     {"-t", "t", "--max-record-bytes", "0"},
		"bad max request size":      {"-t", "t", "--max-request-size", "big"},
		"negative count":            {"-t", "t", "-c", "-1"},
		"partition below -1":        {"-t", "t", "-p", "-2"},
		"partition not a number":    {"-t", "t", "-p", "one"},
		"zero max in flight":        {"-t", "t", "--max-in-flight", "0"},
		"bad linger":                {"-t", "t", "--linger", "5"},
		"zero request timeout":      {"-t", "t", "--request-timeout", "0s"},
		"negative retry backoff":    {"-t", "t", "--retry-backoff", "-1s"},
		"bad delimiter escape":      {"-t", "t", "-D", `\q`},
		"empty delimiter":           {"-t", "t", "-D", ""},
		"bad key delimiter escape":  {"-t", "t", "-K", `\x`},
		"key delimiter with json":   {"-f", "json", "-K", ":"},
		"header without =":          {"-t", "t", "-H", "novalue"},
		"header without key":        {"-t", "t", "-H", "=v"},
		"bad broker":                {"-t", "t", "-b", "host:port"},
		"bad broker port":           {"-t", "t", "-b", "h:99999"},
		"bad log level":             {"-t", "t", "--log-level", "loud"},
		"bad bool from env-like -X": {"-t", "t", "-X", "enable.idempotence=maybe"},
	}
	for name, args := range tests {
		t.Run(name, func(t *testing.T) {
			_, _, err := parseOptions(t, args...)
			require.Error(t, err)
			assert.True(t, cmdutil.IsUsageError(err), "%v", err)
		})
	}
}

func TestAllUsageErrorsReportedAtOnce(t *testing.T) {
	_, _, err := parseOptions(t, "-t", "t", "--linger", "x", "-z", "y", "-a", "7")
	require.Error(t, err)
	for _, flag := range []string{"--linger", "--compression", "--acks"} {
		assert.Contains(t, err.Error(), flag)
	}
}

// A bad value given other than by its flag is told with where it was
// given: the property, the environment variable, the config file's line.
func TestBadValueNamesWhereItWasGiven(t *testing.T) {
	dir := t.TempDir()
	props := filepath.Join(dir, "producer.properties")
	require.NoError(t, os.WriteFile(props, []byte("linger.ms=5\nacks=al\n"), 0o600))
	yamlFile := filepath.Join(dir, "config.yaml")
	require.NoError(t, os.WriteFile(yamlFile, []byte("topic: t\nlinger: abc\n"), 0o600))
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{name: "flag", args: []string{"-a", "al"}, want: `error: --acks "al": invalid value`},
		{name: "-X", args: []string{"-X", "acks=al"}, want: `-X acks: --acks "al": invalid value`},
		{name: "properties file", args: []string{"-F", props}, want: props + `:2 (acks): --acks "al": invalid value`},
		{name: "YAML file", args: []string{"-F", yamlFile}, want: yamlFile + `:2: --linger "abc": invalid value`},
		{name: "environment", env: map[string]string{"KPRODUCE_ACKS": "al"}, want: `env KPRODUCE_ACKS: --acks "al": invalid value`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			_, _, err := parseOptions(t, append([]string{"-t", "t"}, tt.args...)...)
			require.Error(t, err)
			assert.True(t, cmdutil.IsUsageError(err), "%v", err)
			assert.Contains(t, "error: "+err.Error(), tt.want)
		})
	}
}

func TestEmptyKeyDelimiterMeansNoSplit(t *testing.T) {
	o := mustOptions(t, "-t", "t", "-K", "")
	assert.Nil(t, o.Input.KeyDelimiter)
}

func TestEmptyKeyIsAKey(t *testing.T) {
	o := mustOptions(t, "-t", "t", "-k", "")
	assert.NotNil(t, o.Input.Key)
	assert.Empty(t, o.Input.Key)
}

func TestJSONTopicRequiredOnlyPerRecord(t *testing.T) {
	_, _, err := parseOptions(t, "-f", "json")
	assert.NoError(t, err, "json does not need --topic")
	_, _, err = parseOptions(t, "-f", "lines")
	assert.ErrorContains(t, err, "a topic is required")
}

func TestStdinTwiceIsAUsageError(t *testing.T) {
	_, _, err := parseOptions(t, "-t", "t", "-", "-")
	require.Error(t, err)
	assert.True(t, cmdutil.IsUsageError(err))
	assert.ErrorContains(t, err, "stdin (-) given 2 times")
}
