package producecmd_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/kafkatest"
)

// recordByKey indexes records by key ("<nil>" for a null key).
func recordByKey(recs []*kgo.Record) map[string]*kgo.Record {
	m := map[string]*kgo.Record{}
	for _, r := range recs {
		k := "<nil>"
		if r.Key != nil {
			k = string(r.Key)
		}
		m[k] = r
	}
	return m
}

// TestE2EConsoleProducerLines: kafka-console-producer's line reader,
// "headers<TAB>key<TAB>value" with LineMessageReader's defaults and a null
// marker; a line without the separators fails with its position (as
// LineMessageReader does without ignore.error), the others are delivered.
func TestE2EConsoleProducerLines(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	in := "h1:a,h2:b\tk1\tv1\n" +
		"\tk2\tv2\n" +
		"h3:c\tNULL\tv3\n" +
		"h4:d\tk4\tNULL\n" +
		"no-tabs-here\n" +
		"h5:NULL,h5:x\tk5\tv5 with\ttab\n"
	res := runKproduce(t, strings.NewReader(in), "--bootstrap-server", kafkatest.Brokers(c), "--topic", "t",
		"--property", "parse.key=true", "--property", "parse.headers=true", "--property", "null.marker=NULL")
	require.Equal(t, cmdutil.ExitFailed, res.Code, res.Stderr)
	assert.Contains(t, res.Stderr, "error: -:5: t/-1: missing delimiter: no header delimiter")
	recs := recordByKey(kafkatest.ConsumeExactly(t, c, "t", 5))
	r := recs["k1"]
	require.NotNil(t, r)
	assert.Equal(t, "v1", string(r.Value))
	assert.Equal(t, []string{"h1=a", "h2=b"}, headerList(r))
	assert.Empty(t, recs["k2"].Headers)
	assert.Equal(t, "v2", string(recs["k2"].Value))
	require.NotNil(t, recs["<nil>"])
	assert.Equal(t, "v3", string(recs["<nil>"].Value), "the null marker as key: a null key")
	assert.Nil(t, recs["k4"].Value, "the null marker as value: a tombstone")
	r = recs["k5"]
	assert.Equal(t, "v5 with\ttab", string(r.Value), "the value is the rest of the line")
	require.Len(t, r.Headers, 2)
	assert.Nil(t, r.Headers[0].Value, "a header value equal to the null marker is null")
	assert.Equal(t, "h5", r.Headers[1].Key, "repeated header keys kept in order")

	res = runKproduce(t, strings.NewReader("k:v\nno-colon\n"), "--broker-list", kafkatest.Brokers(c), "--topic", "u",
		"--reader-property", "parse.key=true", "--reader-property", "key.separator=:", "--reader-property", "ignore.error=true")
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	recs = recordByKey(kafkatest.ConsumeExactly(t, c, "u", 2))
	assert.Equal(t, "v", string(recs["k"].Value))
	assert.Equal(t, "no-colon", string(recs["<nil>"].Value), "ignore.error: no key")
}

// producerProperties is a producer.properties as teams keep them: Kafka's
// shipped file with the serializers and retries set.
const producerProperties = `# see org.apache.kafka.clients.producer.ProducerConfig for more details
############################# Producer Basics #############################
# list of brokers used for bootstrapping knowledge about the rest of the cluster
bootstrap.servers=%s
# specify the compression codec for all data generated: none, gzip, snappy, lz4, zstd
compression.type=lz4
acks=1
retries=3
linger.ms=10
key.serializer=org.apache.kafka.common.serialization.StringSerializer
value.serializer=org.apache.kafka.common.serialization.StringSerializer
interceptor.classes=
# the maximum size of a request in bytes
#max.request.size=
`

// TestE2EConsoleProducerFlags: the console producer's flags and a real
// producer.properties take effect; serializers and retries are accepted
// without a warning; --compression-codec and --request-required-acks beat
// the file, --sync sends one record per request.
func TestE2EConsoleProducerFlags(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	reqs := observeProduce(c)
	props := kafkatest.WriteFile(t, t.TempDir(), "producer.properties", []byte(strings.Replace(producerProperties, "%s", kafkatest.Brokers(c), 1)))
	res := runKproduce(t, strings.NewReader(kafkatest.NumberedLines("p", 20)), "--topic", "t", "--producer.config", props)
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	assert.Empty(t, res.Stderr, "a pasted producer.properties is accepted silently")
	for _, r := range kafkatest.ConsumeExactly(t, c, "t", 20) {
		assert.EqualValues(t, 3, r.Attrs.CompressionType(), "lz4 from the file")
		assert.EqualValues(t, -1, r.ProducerID, "acks=1: not idempotent")
	}
	for _, req := range reqs.all() {
		assert.EqualValues(t, 1, req.Acks)
	}

	before := len(reqs.all())
	res = runKproduce(t, strings.NewReader(kafkatest.NumberedLines("s", 5)), "--topic", "u", "--command-config", props,
		"--compression-codec", "zstd", "--request-required-acks", "-1", "--sync", "--timeout", "1000",
		"--producer-property", "enable.idempotence=true")
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	for _, r := range kafkatest.ConsumeExactly(t, c, "u", 5) {
		assert.EqualValues(t, 4, r.Attrs.CompressionType(), "--compression-codec beats the file")
		assert.GreaterOrEqual(t, r.ProducerID, int64(0), "idempotent")
	}
	after := reqs.all()[before:]
	assert.Len(t, after, 5, "--sync: one request per record, although --timeout (linger.ms) is 1s")
	for _, req := range after {
		assert.EqualValues(t, -1, req.Acks)
	}

	res = runKproduce(t, strings.NewReader("x\n"), "--bootstrap-server", kafkatest.Brokers(c), "--topic", "t", "--line-reader", "com.example.AvroReader")
	assert.Equal(t, cmdutil.ExitUsage, res.Code)
	assert.Contains(t, res.Stderr, "cannot run Java reader classes")
	assert.Len(t, kafkatest.ConsumeExactly(t, c, "t", 20), 20, "nothing more produced")
}
