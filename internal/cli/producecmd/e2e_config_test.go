package producecmd_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/kafkatest"
)

// TestE2EJavaProperties checks that -X properties take effect: acks and
// idempotence in the requests and records, compression.type and
// batch.size in the batches.
func TestE2EJavaProperties(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	reqs := observeProduce(c)
	const n = 400
	res := runKproduce(t, strings.NewReader(kafkatest.NumberedLines("x", n)), "-t", "t",
		"-X", "bootstrap.servers="+kafkatest.Brokers(c), "-X", "acks=1", "-X", "compression.type=gzip",
		"-X", "batch.size=1024", "-X", "linger.ms=10", "-X", "client.id=props-test")
	require.Equal(t, 0, res.Code, res.Stderr)
	assert.Empty(t, res.Stderr)
	recs := kafkatest.ConsumeExactly(t, c, "t", n)
	for _, r := range recs {
		assert.EqualValues(t, 1, r.Attrs.CompressionType(), "gzip")
		assert.EqualValues(t, -1, r.ProducerID, "acks=1 turns idempotence off")
	}
	for _, req := range reqs.all() {
		assert.EqualValues(t, 1, req.Acks)
	}
	assert.Greater(t, reqs.batches(), n*4/1024, "batch.size=1024 makes many batches")
}

// TestE2EJavaLingerAndTimeouts checks linger.ms and delivery.timeout.ms
// through their effect on the request timeout (lowered, with a warning,
// to fit the delivery timeout), and that a linger longer than the delivery
// timeout is a usage error.
func TestE2EJavaLingerAndTimeouts(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	res := produceTo(t, c, strings.NewReader("a\n"), "-t", "t",
		"-X", "delivery.timeout.ms=3000", "-X", "linger.ms=1000", "-X", "request.timeout.ms=30000")
	require.Equal(t, 0, res.Code, res.Stderr)
	assert.Contains(t, res.Stderr, "request timeout lowered to 2s")
	kafkatest.ConsumeExactly(t, c, "t", 1)

	res = produceTo(t, c, strings.NewReader("b\n"), "-t", "t",
		"-X", "delivery.timeout.ms=3000", "-X", "linger.ms=5000")
	require.Equal(t, 2, res.Code, res.Stderr)
	assert.Contains(t, res.Stderr, "linger")
	kafkatest.ConsumeExactly(t, c, "t", 1)
}

// TestE2EUnknownJavaPropertyWarns checks that an unknown -X name is a
// warning and the records are still produced.
func TestE2EUnknownJavaPropertyWarns(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	res := produceTo(t, c, strings.NewReader("a\n"), "-t", "t", "-X", "no.such.property=1")
	require.Equal(t, 0, res.Code, res.Stderr)
	assert.Contains(t, res.Stderr, "no.such.property")
	kafkatest.ConsumeExactly(t, c, "t", 1)
}

// TestE2EConfigYAML checks a YAML --config file end to end: brokers, topic,
// acks, compression, headers and key delimiter from the file, and a flag
// overriding the file.
func TestE2EConfigYAML(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	reqs := observeProduce(c)
	yaml := "brokers: [" + strings.Join(c.ListenAddrs(), ", ") + "]\n" +
		"topic: t\nacks: 1\ncompression: lz4\nheader: [\"from=yaml\"]\nkey-delimiter: ':'\nlinger: 1ms\n"
	cfg := kafkatest.WriteFile(t, t.TempDir(), "kproduce.yaml", []byte(yaml))
	res := runKproduce(t, strings.NewReader("k1:v1\nk2:v2\n"), "--config", cfg)
	require.Equal(t, 0, res.Code, res.Stderr)
	recs := kafkatest.ByValue(t, kafkatest.ConsumeExactly(t, c, "t", 2))
	for _, v := range []string{"v1", "v2"} {
		r := recs[v]
		require.NotNil(t, r, v)
		assert.Equal(t, "k"+v[1:], string(r.Key))
		assert.EqualValues(t, 3, r.Attrs.CompressionType(), "lz4")
		assert.Equal(t, []string{"from=yaml"}, headerList(r))
		assert.EqualValues(t, -1, r.ProducerID)
	}
	for _, req := range reqs.all() {
		assert.EqualValues(t, 1, req.Acks)
	}

	res = runKproduce(t, strings.NewReader("k3:v3\n"), "--config", cfg, "-z", "snappy")
	require.Equal(t, 0, res.Code, res.Stderr)
	r := kafkatest.ByValue(t, kafkatest.ConsumeExactly(t, c, "t", 3))["v3"]
	require.NotNil(t, r)
	assert.EqualValues(t, 2, r.Attrs.CompressionType(), "the flag wins over the file")
}

// TestE2EConfigYAMLUnknownKey checks that an unknown key in a YAML config
// is a usage error naming it, and that nothing is produced.
func TestE2EConfigYAMLUnknownKey(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	cfg := kafkatest.WriteFile(t, t.TempDir(), "bad.yaml", []byte("topic: t\nlingr: 5ms\n"))
	res := produceTo(t, c, strings.NewReader("a\n"), "--config", cfg)
	require.Equal(t, 2, res.Code, res.Stderr)
	assert.Contains(t, res.Stderr, "lingr")
	kafkatest.RequireEmpty(t, c, "t")
}

// TestE2EConfigProperties checks a Java .properties --config file end to
// end: bootstrap servers, compression, acks, idempotence and batch size.
func TestE2EConfigProperties(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	reqs := observeProduce(c)
	props := "# a producer.properties file\n" +
		"bootstrap.servers=" + kafkatest.Brokers(c) + "\n" +
		"compression.type = zstd\n" +
		"acks=all\n" +
		"enable.idempotence=false\n" +
		"batch.size:2048\n" +
		"key.serializer=org.apache.kafka.common.serialization.StringSerializer\n"
	cfg := kafkatest.WriteFile(t, t.TempDir(), "producer.properties", []byte(props))
	const n = 300
	res := runKproduce(t, strings.NewReader(kafkatest.NumberedLines("p", n)), "-t", "t", "--config", cfg)
	require.Equal(t, 0, res.Code, res.Stderr)
	for _, r := range kafkatest.ConsumeExactly(t, c, "t", n) {
		assert.EqualValues(t, 4, r.Attrs.CompressionType(), "zstd")
		assert.EqualValues(t, -1, r.ProducerID, "enable.idempotence=false")
	}
	for _, req := range reqs.all() {
		assert.EqualValues(t, -1, req.Acks)
	}
	assert.Greater(t, reqs.batches(), n*4/2048, "batch.size=2048 makes several batches")
}

// TestE2EConfigPrecedence checks flag > env > config file for one option,
// each source naming a different codec.
func TestE2EConfigPrecedence(t *testing.T) { // not parallel: it sets the environment
	c := kafkatest.ProducerCluster(t)
	cfg := kafkatest.WriteFile(t, t.TempDir(), "kproduce.yaml", []byte("compression: lz4\n"))
	t.Setenv("KPRODUCE_COMPRESSION", "snappy")
	t.Setenv("KPRODUCE_BROKERS", kafkatest.Brokers(c))
	cases := []struct {
		name  string
		args  []string
		codec uint8
	}{
		{"env over file", []string{"--config", cfg}, 2},
		{"flag over env", []string{"--config", cfg, "-z", "gzip"}, 1},
		{"-X over env", []string{"--config", cfg, "-X", "compression.type=zstd"}, 4},
	}
	for i, tc := range cases {
		res := runKproduce(t, strings.NewReader(tc.name+"\n"), append([]string{"-t", "t"}, tc.args...)...)
		require.Equal(t, 0, res.Code, res.Stderr)
		r := kafkatest.ByValue(t, kafkatest.ConsumeExactly(t, c, "t", i+1))[tc.name]
		require.NotNil(t, r, tc.name)
		assert.Equal(t, tc.codec, r.Attrs.CompressionType(), tc.name)
	}
}
