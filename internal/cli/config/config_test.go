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

// writeFile writes a file in a test directory and returns its path.
func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(text), 0o600))
	return path
}

func TestDefaults(t *testing.T) {
	o := mustOptions(t, "-t", "t")
	assert.Equal(t, []string{"127.0.0.1:9092"}, o.Brokers)
	assert.Equal(t, "t", o.Topic)
	assert.Equal(t, int32(-1), o.Partition)
	assert.Equal(t, "murmur2", o.Partitioner)
	assert.Equal(t, "lines", o.Input.Format)
	assert.Equal(t, []byte("\n"), o.Input.Delimiter)
	assert.Nil(t, o.Input.KeyDelimiter)
	assert.Nil(t, o.Input.Key)
	assert.False(t, o.Input.NullEnabled)
	assert.False(t, o.Input.SkipEmpty)
	assert.Equal(t, int64(1<<20), o.Input.MaxRecordBytes)
	assert.Zero(t, o.Count)
	assert.Equal(t, sender.AllAcks, o.Acks)
	assert.True(t, o.Idempotence)
	assert.Equal(t, 5*time.Millisecond, o.Linger)
	assert.Equal(t, 1<<20, o.BatchSize)
	assert.Equal(t, int64(8<<20), o.BufferMemory)
	assert.Equal(t, 1<<20, o.MaxRequestSize)
	assert.Equal(t, protocol.CodecNone, o.Compression)
	assert.Equal(t, 5, o.MaxInFlight)
	assert.Equal(t, 30*time.Second, o.RequestTimeout)
	assert.Equal(t, 2*time.Minute, o.DeliveryTimeout)
	assert.Equal(t, 5*time.Second, o.CloseTimeout)
	assert.Equal(t, 100*time.Millisecond, o.RetryBackoff)
	assert.Equal(t, 5*time.Minute, o.MetadataMaxAge)
	assert.Equal(t, "kproduce", o.ClientID)
	assert.Equal(t, "text", o.Output.String())
	assert.Equal(t, "warn", o.LogLevel.String())
	assert.Empty(t, o.JavaSecurity)
}

func TestEveryFlag(t *testing.T) {
	o := mustOptions(t, "-b", "a:1,b:2", "-b", "c:3", "-t", "x", "-p", "4", "--partitioner", "crc32",
		"-f", "lines", "-D", `\r\n`, "-K", `\t`, "-k", "dk", "-H", "a=1", "--null", "NIL", "--skip-empty",
		"--max-record-bytes", "2KiB", "-c", "10", "-a", "1", "--linger", "1s", "--batch-size", "64k",
		"--buffer-memory", "1g", "--max-request-size", "2MB", "-z", "zstd", "--max-in-flight", "9",
		"--request-timeout", "3s", "--delivery-timeout", "9s", "--close-timeout", "0", "--retry-backoff", "1ms",
		"--metadata-max-age", "1m", "--client-id", "me", "-o", "json", "--log-level", "error", "f1", "f2")
	assert.Equal(t, []string{"a:1", "b:2", "c:3"}, o.Brokers)
	assert.Equal(t, int32(4), o.Partition)
	assert.Equal(t, "crc32", o.Partitioner)
	assert.Equal(t, []byte("\r\n"), o.Input.Delimiter)
	assert.Equal(t, []byte("\t"), o.Input.KeyDelimiter)
	assert.Equal(t, []byte("dk"), o.Input.Key)
	assert.Equal(t, []protocol.Header{{Key: "a", Value: []byte("1")}}, o.Input.Headers)
	assert.True(t, o.Input.NullEnabled)
	assert.Equal(t, []byte("NIL"), o.Input.NullMarker)
	assert.True(t, o.Input.SkipEmpty)
	assert.Equal(t, int64(2048), o.Input.MaxRecordBytes)
	assert.Equal(t, int64(10), o.Count)
	assert.Equal(t, sender.LeaderAck, o.Acks)
	assert.False(t, o.Idempotence)
	assert.Equal(t, time.Second, o.Linger)
	assert.Equal(t, 64<<10, o.BatchSize)
	assert.Equal(t, int64(1<<30), o.BufferMemory)
	assert.Equal(t, 2000000, o.MaxRequestSize)
	assert.Equal(t, protocol.CodecZstd, o.Compression)
	assert.Equal(t, 9, o.MaxInFlight)
	assert.Equal(t, 3*time.Second, o.RequestTimeout)
	assert.Equal(t, 9*time.Second, o.DeliveryTimeout)
	assert.Zero(t, o.CloseTimeout)
	assert.Equal(t, time.Millisecond, o.RetryBackoff)
	assert.Equal(t, time.Minute, o.MetadataMaxAge)
	assert.Equal(t, "me", o.ClientID)
	assert.Equal(t, "json", o.Output.String())
	assert.Equal(t, "error", o.LogLevel.String())
	assert.Equal(t, []string{"f1", "f2"}, o.Files)
}

func TestPrecedence(t *testing.T) {
	yamlFile := writeFile(t, "c.yaml", "linger: 10ms\nclient-id: from-yaml\nacks: 1\n")
	propsFile := writeFile(t, "p.properties", "linger.ms=11\nclient.id=from-props\n")

	// default < config file
	o := mustOptions(t, "-t", "t", "--config", yamlFile)
	assert.Equal(t, 10*time.Millisecond, o.Linger)
	assert.Equal(t, "from-yaml", o.ClientID)
	assert.Equal(t, sender.LeaderAck, o.Acks)
	o = mustOptions(t, "-t", "t", "--config", propsFile)
	assert.Equal(t, 11*time.Millisecond, o.Linger)
	assert.Equal(t, "from-props", o.ClientID)

	// config file < env
	t.Setenv("KPRODUCE_LINGER", "20ms")
	o = mustOptions(t, "-t", "t", "--config", yamlFile)
	assert.Equal(t, 20*time.Millisecond, o.Linger)
	assert.Equal(t, "from-yaml", o.ClientID)
	o = mustOptions(t, "-t", "t", "--config", propsFile)
	assert.Equal(t, 20*time.Millisecond, o.Linger)

	// env < -X
	o = mustOptions(t, "-t", "t", "--config", yamlFile, "-X", "linger.ms=30")
	assert.Equal(t, 30*time.Millisecond, o.Linger)

	// -X < flag, with a warning
	o, stderr, err := parseOptions(t, "-t", "t", "--config", yamlFile, "-X", "linger.ms=30", "--linger", "40ms")
	require.NoError(t, err)
	assert.Equal(t, 40*time.Millisecond, o.Linger)
	assert.Contains(t, stderr, "-X linger.ms ignored: --linger was given")
}

func TestEnvNames(t *testing.T) {
	t.Setenv("KPRODUCE_BROKERS", "e1:1,e2:2")
	t.Setenv("KPRODUCE_DELIVERY_TIMEOUT", "1m")
	t.Setenv("KPRODUCE_TOPIC", "envtopic")
	t.Setenv("KPRODUCE_HEADER", "a=1,2")
	t.Setenv("KPRODUCE_SKIP_EMPTY", "true")
	t.Setenv("KPRODUCE_CONFIG", writeFile(t, "c.yaml", "client-id: via-env-config\n"))
	o := mustOptions(t)
	assert.Equal(t, []string{"e1:1", "e2:2"}, o.Brokers)
	assert.Equal(t, time.Minute, o.DeliveryTimeout)
	assert.Equal(t, "envtopic", o.Topic)
	assert.Equal(t, []protocol.Header{{Key: "a", Value: []byte("1,2")}}, o.Input.Headers, "a header from the env is not split at commas")
	assert.True(t, o.Input.SkipEmpty)
	assert.Equal(t, "via-env-config", o.ClientID)
}

func TestYAMLConfig(t *testing.T) {
	path := writeFile(t, "kproduce.yaml", `
brokers: [a:1, "b:2,c:3"]
topic: yt
header: ["x=1", "y=2"]
idempotence: false
batch-size: 65536
buffer-memory: 64MiB
max-in-flight: 3
delimiter: '\0'
null: ""
property:
  retry.backoff.ms: 250
  ssl.truststore.location: /tmp/ts.jks
  unknown.thing: 1
`)
	o, stderr, err := parseOptions(t, "--config", path)
	require.NoError(t, err)
	assert.Equal(t, []string{"a:1", "b:2", "c:3"}, o.Brokers)
	assert.Equal(t, "yt", o.Topic)
	assert.Len(t, o.Input.Headers, 2)
	assert.False(t, o.Idempotence)
	assert.Equal(t, 65536, o.BatchSize)
	assert.Equal(t, int64(64<<20), o.BufferMemory)
	assert.Equal(t, 3, o.MaxInFlight)
	assert.Equal(t, []byte{0}, o.Input.Delimiter)
	assert.True(t, o.Input.NullEnabled)
	assert.Empty(t, o.Input.NullMarker)
	assert.Equal(t, 250*time.Millisecond, o.RetryBackoff)
	assert.Equal(t, map[string]string{"ssl.truststore.location": "/tmp/ts.jks"}, o.JavaSecurity)
	assert.Contains(t, stderr, "unknown property unknown.thing")
	assert.Contains(t, stderr, "ssl.truststore.location has no effect without security.protocol=SSL")
	assert.Equal(t, path, o.ConfigFile)
}

func TestYAMLErrors(t *testing.T) {
	tests := map[string]string{
		"unknown key":           "topic: t\nlingr: 5ms\n",
		"config in config":      "config: other.yaml\n",
		"nested map":            "linger: {a: 1}\n",
		"list for a scalar":     "topic: [a, b]\n",
		"not a map":             "- a\n- b\n",
		"not yaml":              "topic: [\n",
		"bad property list":     "property: [novalue]\n",
		"bad java value":        "property: {linger.ms: abc}\n",
		"bad value is reported": "topic: t\nlinger: soon\n",
	}
	for name, text := range tests {
		t.Run(name, func(t *testing.T) {
			_, _, err := parseOptions(t, "--config", writeFile(t, "c.yaml", text))
			require.Error(t, err)
			assert.True(t, cmdutil.IsUsageError(err), "%v", err)
		})
	}
	_, _, err := parseOptions(t, "--config", writeFile(t, "c.yaml", "topic: t\nlingr: 5ms\n"))
	assert.ErrorContains(t, err, `unknown key "lingr"`)
	_, _, err = parseOptions(t, "--config", filepath.Join(t.TempDir(), "missing.yaml"))
	assert.True(t, cmdutil.IsUsageError(err))
}

func TestPropertiesConfig(t *testing.T) {
	path := writeFile(t, "producer.properties", `
bootstrap.servers=p1:9092,p2:9092
acks=-1
batch.size=16384
compression.type=lz4
enable.idempotence=true
max.in.flight.requests.per.connection=5
buffer.memory=33554432
max.request.size=2097152
delivery.timeout.ms=60000
max.block.ms=15000
request.timeout.ms=20000
retry.backoff.ms=50
metadata.max.age.ms=1000
client.id=props
partitioner.class=org.apache.kafka.clients.producer.RoundRobinPartitioner
key.serializer=org.apache.kafka.common.serialization.StringSerializer
security.protocol=SASL_SSL
sasl.mechanism=PLAIN
sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="s3cret";
ssl.key.password=k3y
made.up=1
`)
	o, stderr, err := parseOptions(t, "-t", "t", "--config", path, "--log-level", "debug")
	require.NoError(t, err)
	assert.Equal(t, []string{"p1:9092", "p2:9092"}, o.Brokers)
	assert.Equal(t, sender.AllAcks, o.Acks)
	assert.Equal(t, 16384, o.BatchSize)
	assert.Equal(t, protocol.CodecLz4, o.Compression)
	assert.True(t, o.Idempotence)
	assert.Equal(t, 2097152, o.MaxRequestSize)
	assert.Equal(t, time.Minute, o.DeliveryTimeout)
	assert.Equal(t, 15*time.Second, o.BootstrapTimeout, "max.block.ms")
	assert.Equal(t, 20*time.Second, o.RequestTimeout)
	assert.Equal(t, 50*time.Millisecond, o.RetryBackoff)
	assert.Equal(t, time.Second, o.MetadataMaxAge)
	assert.Equal(t, "props", o.ClientID)
	assert.Equal(t, "SASL_SSL", o.JavaSecurity["security.protocol"])
	assert.Contains(t, o.JavaSecurity["sasl.jaas.config"], `password="s3cret"`)
	assert.Equal(t, sender.PartitionerRoundRobin, o.Partitioner)
	assert.NotContains(t, stderr, "key.serializer", "a serializer is accepted silently")
	assert.Contains(t, stderr, path+":22: unknown property made.up")
	assert.NotContains(t, stderr, "s3cret", "secrets are never logged")
	assert.NotContains(t, stderr, "k3y", "secrets are never logged")
	assert.Contains(t, stderr, "[redacted]")
}

func TestPropertyFlag(t *testing.T) {
	o, stderr, err := parseOptions(t, "-t", "t",
		"-X", "bootstrap.servers=x1:1,x2:2", "-X", "acks=-1", "-X", "linger.ms=7", "-X", "batch.size=1000",
		"-X", "compression.type=gzip", "-X", "client.id=a=b", "-X", "max.in.flight.requests.per.connection=2",
		"-X", "sasl.jaas.config=M required password=\"p,w\";", "-X", "nope=1", "-X", "partitioner.class=DefaultPartitioner")
	require.NoError(t, err)
	assert.Equal(t, []string{"x1:1", "x2:2"}, o.Brokers)
	assert.Equal(t, sender.AllAcks, o.Acks)
	assert.Equal(t, 7*time.Millisecond, o.Linger)
	assert.Equal(t, 1000, o.BatchSize)
	assert.Equal(t, protocol.CodecGzip, o.Compression)
	assert.Equal(t, "a=b", o.ClientID)
	assert.Equal(t, 2, o.MaxInFlight)
	assert.Equal(t, `M required password="p,w";`, o.JavaSecurity["sasl.jaas.config"], "a property keeps its commas")
	assert.Contains(t, stderr, "unknown property nope")
	assert.Equal(t, sender.PartitionerMurmur2, o.Partitioner)

	for _, bad := range []string{"novalue", "=1", "linger.ms=5ms", "acks=2", "request.timeout.ms=-5", "partitioner.class=x"} {
		_, _, err := parseOptions(t, "-t", "t", "-X", bad)
		assert.True(t, cmdutil.IsUsageError(err), "-X %s: %v", bad, err)
	}
}

func TestPropertyFileBeneathXFlag(t *testing.T) {
	path := writeFile(t, "p.properties", "sasl.mechanism=PLAIN\nlinger.ms=1\n")
	o := mustOptions(t, "-t", "t", "--config", path, "-X", "sasl.mechanism=SCRAM-SHA-256", "-X", "linger.ms=2")
	assert.Equal(t, "SCRAM-SHA-256", o.JavaSecurity["sasl.mechanism"])
	assert.Equal(t, 2*time.Millisecond, o.Linger)
}
