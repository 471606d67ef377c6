package config

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/pkg/protocol"
	"github.com/kproduce/kproduce/pkg/sender"
)

// TestConsoleProducerFlags: kafka-console-producer's flags mean what they
// mean there, in its units (milliseconds), as the same options as
// kproduce's flags.
func TestConsoleProducerFlags(t *testing.T) {
	o := mustOptions(t, "--topic", "t", "--bootstrap-server", "k1:9093,k2", "--request-required-acks", "1",
		"--timeout", "250", "--request-timeout-ms", "7000", "--retry-backoff-ms", "20", "--metadata-expiry-ms", "60000",
		"--max-block-ms", "3000", "--message-send-max-retries", "2", "--max-memory-bytes", "1048576",
		"--max-partition-memory-bytes", "16384", "--compression-codec", "lz4", "--sync")
	assert.Equal(t, []string{"k1:9093", "k2:9092"}, o.Brokers)
	assert.Equal(t, sender.LeaderAck, o.Acks)
	assert.Equal(t, 250*time.Millisecond, o.Linger)
	assert.Equal(t, 7*time.Second, o.RequestTimeout)
	assert.Equal(t, 20*time.Millisecond, o.RetryBackoff)
	assert.Equal(t, time.Minute, o.MetadataMaxAge)
	assert.Equal(t, 3*time.Second, o.BootstrapTimeout)
	assert.Equal(t, 2, o.Retries)
	assert.Equal(t, int64(1<<20), o.BufferMemory)
	assert.Equal(t, 16384, o.BatchSize)
	assert.Equal(t, protocol.CodecLz4, o.Compression)
	assert.True(t, o.Sync)

	o = mustOptions(t, "--topic", "t", "--broker-list", "old:9092", "--compression-codec")
	assert.Equal(t, []string{"old:9092"}, o.Brokers)
	assert.Equal(t, protocol.CodecGzip, o.Compression, "--compression-codec without a value is gzip")

	props := writeFile(t, "producer.properties", "linger.ms=9\nacks=0\n")
	for _, flag := range []string{"--producer.config", "--command-config", "-F", "--config"} {
		o = mustOptions(t, "-t", "t", flag, props, "--producer-property", "client.id=cp", "--command-property", "batch.size=999")
		assert.Equal(t, 9*time.Millisecond, o.Linger, flag)
		assert.Equal(t, sender.NoAck, o.Acks, flag)
		assert.Equal(t, "cp", o.ClientID)
		assert.Equal(t, 999, o.BatchSize)
	}

	o, stderr, err := parseOptions(t, "-t", "t", "--producer-property", "linger.ms=1", "--timeout", "2")
	require.NoError(t, err)
	assert.Equal(t, 2*time.Millisecond, o.Linger, "as in the console producer, --timeout beats --producer-property")
	assert.Empty(t, stderr)
	_, stderr, err = parseOptions(t, "-t", "t", "--socket-buffer-size", "1024")
	require.NoError(t, err)
	assert.Contains(t, stderr, "send.buffer.bytes has no equivalent")
}

// TestConsoleProducerReader: --property and --reader-property take the
// line reader's properties; --reader-config a file of them; a Java reader
// class is refused, LineMessageReader accepted.
func TestConsoleProducerReader(t *testing.T) {
	o := mustOptions(t, "-t", "t", "--property", "parse.key=true", "--property", "key.separator=:")
	assert.Equal(t, []byte(":"), o.Input.KeyDelimiter)
	assert.True(t, o.Input.RequireDelimiters)
	o = mustOptions(t, "-t", "t", "--reader-property", "parse.headers=true", "--reader-property", "ignore.error=true")
	assert.Equal(t, []byte("\t"), o.Input.HeaderDelimiter)
	assert.Equal(t, []byte(","), o.Input.HeaderSeparator)
	assert.Equal(t, []byte(":"), o.Input.HeaderKeySeparator)
	assert.False(t, o.Input.RequireDelimiters)
	o = mustOptions(t, "-t", "t", "--property", `key.separator=\`, "--property", "parse.key=true")
	assert.Equal(t, []byte(`\`), o.Input.KeyDelimiter, "a value is taken as given: a backslash is a backslash")

	reader := writeFile(t, "reader.properties", "parse.key=true\nkey.separator=\\t\nnull.marker=NIL\n")
	o = mustOptions(t, "-t", "t", "--reader-config", reader, "--property", "null.marker=-")
	assert.Equal(t, []byte("\t"), o.Input.KeyDelimiter, "a properties file decodes \\t")
	assert.Equal(t, []byte("-"), o.Input.NullMarker, "--property beats --reader-config")
	o = mustOptions(t, "-t", "t", "--line-reader", "org.apache.kafka.tools.LineMessageReader")
	assert.Nil(t, o.Input.KeyDelimiter)

	for name, args := range map[string][]string{
		"reader class":                 {"--line-reader", "com.example.AvroReader"},
		"KIP-1147 reader class":        {"--reader", "com.example.AvroReader"},
		"producer property as reader":  {"--reader-property", "acks=all"},
		"bad boolean":                  {"--property", "parse.key=yes"},
		"equal separators":             {"--property", "headers.separator=:"},
		"null marker equals separator": {"--property", "null.marker=\t"},
		"empty separator":              {"--property", "key.separator="},
	} {
		_, _, err := parseOptions(t, append([]string{"-t", "t"}, args...)...)
		assert.True(t, cmdutil.IsUsageError(err), "%s: %v", name, err)
	}
	_, _, err := parseOptions(t, "-t", "t", "--line-reader", "x.Y")
	assert.ErrorContains(t, err, "-f json")
}

// TestKcatFlags: -P and -l are accepted (kproduce only produces and reads
// FILEs as lines), -q and -v set the log level unless --log-level is
// given, -Z is --tombstone, -F is --config.
func TestKcatFlags(t *testing.T) {
	o := mustOptions(t, "-P", "-l", "-t", "t", "-q")
	assert.Equal(t, "error", o.LogLevel.String())
	for args, want := range map[string][]string{"info": {"-v"}, "debug": {"-vv"}, "trace": {"-vvv"}} {
		o = mustOptions(t, append([]string{"-t", "t"}, want...)...)
		assert.Equal(t, args, o.LogLevel.String())
	}
	o = mustOptions(t, "-t", "t", "-v", "--log-level", "error")
	assert.Equal(t, "error", o.LogLevel.String(), "--log-level wins")
	o = mustOptions(t, "-t", "t", "-Z", "-K", ":")
	assert.True(t, o.Input.EmptyAsNull)
	kcatConf := writeFile(t, "kcat.conf", "# kcat\nmetadata.broker.list=rk:9092\nqueue.buffering.max.ms=3\n")
	o = mustOptions(t, "-t", "t", "-F", kcatConf)
	assert.Equal(t, []string{"rk:9092"}, o.Brokers)
	assert.Equal(t, 3*time.Millisecond, o.Linger)
}

// TestRpkHabits: -H key:value, --output-format, -X brokers.
func TestRpkHabits(t *testing.T) {
	o := mustOptions(t, "-t", "t", "-H", "a:1", "-H", "b=2:3", "-H", "url:http://x", "--output-format", "%v\n", "-X", "brokers=r1:9092")
	assert.Equal(t, []protocol.Header{{Key: "a", Value: []byte("1")}, {Key: "b", Value: []byte("2:3")}, {Key: "url", Value: []byte("http://x")}}, o.Input.Headers)
	assert.Equal(t, "%v\n", o.Output.String())
	assert.Equal(t, []string{"r1:9092"}, o.Brokers)
}

// TestRpkConnectionFlags: rpk's own connection flags, deprecated for its
// -X names but still taken by rpk, set kproduce's: --user, --password
// (with OAUTHBEARER, the token), --tls-enabled.
func TestRpkConnectionFlags(t *testing.T) {
	o := mustOptions(t, "-t", "t", "--sasl-mechanism", "SCRAM-SHA-256", "--user", "alice", "--password", "s3cret", "--tls-enabled")
	assert.Equal(t, "alice", o.Security.SASLUsername)
	assert.Equal(t, "s3cret", o.Security.SASLPassword)
	assert.True(t, o.Security.TLS)
	o = mustOptions(t, "-t", "t", "--sasl-mechanism", "OAUTHBEARER", "--password", "token:eyJ.x.y")
	assert.Equal(t, "eyJ.x.y", o.Security.OAuth.Token)
	d, _ := describe(t, "--password", "s3cret")
	for _, s := range d.Settings {
		if s.Name == "sasl-password" {
			assert.Equal(t, "[redacted]", s.Value)
			assert.Equal(t, "flag --sasl-password", s.Origin)
		}
	}
}

func TestBrokerDefaultPort(t *testing.T) {
	o := mustOptions(t, "-t", "t", "-b", "kafka,10.0.0.1,[::1],h:9093,[::2]:9094")
	assert.Equal(t, []string{"kafka:9092", "10.0.0.1:9092", "[::1]:9092", "h:9093", "[::2]:9094"}, o.Brokers)
}

// TestForceTopic: -t on the command line beats a record's own topic; a
// topic from the environment or a config file is only a default.
func TestForceTopic(t *testing.T) {
	assert.True(t, mustOptions(t, "-f", "json", "-t", "dst").ForceTopic)
	t.Setenv("KPRODUCE_TOPIC", "env")
	o := mustOptions(t, "-f", "json")
	assert.Equal(t, "env", o.Topic)
	assert.False(t, o.ForceTopic)
}

// TestRetries: retries=0 turns idempotence off unless asked for; asking
// for both, or a transaction without retries, is a usage error.
func TestRetries(t *testing.T) {
	o := mustOptions(t, "-t", "t", "-X", "retries=0")
	assert.Equal(t, 0, o.Retries)
	assert.False(t, o.Idempotence)
	assert.Equal(t, -1, mustOptions(t, "-t", "t").Retries)
	o = mustOptions(t, "-t", "t", "-X", "retries=2147483647")
	assert.True(t, o.Idempotence)
	for _, args := range [][]string{{"--retries", "0", "--idempotence"}, {"--retries", "0", "--transactional-id", "x"}, {"--retries", "-2"}} {
		_, _, err := parseOptions(t, append([]string{"-t", "t"}, args...)...)
		assert.True(t, cmdutil.IsUsageError(err), "%v: %v", args, err)
	}
}

// TestFormatStringOption: -f with a % verb is a format string; a topic is
// then optional with %t, and -D does not apply.
func TestFormatStringOption(t *testing.T) {
	o := mustOptions(t, "-f", `%t %k %v\n`)
	assert.Equal(t, "layout", o.Input.Format)
	assert.Equal(t, `%t %k %v\n`, o.Input.Layout.String())
	for _, args := range [][]string{{"-f", `%k %v\n`}, {"-t", "t", "-f", `%k%v`}, {"-t", "t", "-f", `%v\n`, "-D", ";"},
		{"-t", "t", "-f", `%v\n`, "-K", ":"}, {"-t", "t", "-f", "json", "--header-delimiter", "|"}} {
		_, _, err := parseOptions(t, args...)
		assert.True(t, cmdutil.IsUsageError(err), "%v: %v", args, err)
	}
}

// TestUnknownEnvironment: a KPRODUCE_* variable that names no option is a
// warning with the nearest one; another tool's variable kproduce does not
// read is a warning when kproduce has no value of its own.
func TestUnknownEnvironment(t *testing.T) {
	t.Setenv("KPRODUCE_BROKER", "x:1")
	cfg := filepath.Join(t.TempDir(), "kcat.conf")
	t.Setenv("KCAT_CONFIG", cfg)
	_, stderr, err := parseOptions(t, "-t", "t")
	require.NoError(t, err)
	assert.Contains(t, stderr, "environment variable KPRODUCE_BROKER is not a kproduce option; ignored (did you mean KPRODUCE_BROKERS?)")
	assert.Contains(t, stderr, "KCAT_CONFIG is set, but kproduce reads KPRODUCE_CONFIG")
	require.NoError(t, os.WriteFile(cfg, []byte("linger.ms=1\n"), 0o600))
	_, stderr, err = parseOptions(t, "-t", "t", "-F", cfg)
	require.NoError(t, err)
	assert.NotContains(t, stderr, "KCAT_CONFIG", "a config file given: no warning")
}
