package producecmd_test

import (
	"crypto/tls"
	"fmt"
	"hash/crc32"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/kafkatest"
	"github.com/kproduce/kproduce/pkg/network/networktest"
)

// TestE2EKcatCommandLine: kcat -P habits: -P accepted, -K with -Z (empty
// key or value as null), -l with a FILE read as lines, -k, -H name=value,
// -q silencing warnings.
func TestE2EKcatCommandLine(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	file := kafkatest.WriteFile(t, t.TempDir(), "in.txt", []byte("k1:v1\nk2:\n:v3\n"))
	res := runKproduce(t, nil, "-P", "-b", kafkatest.Brokers(c), "-t", "t", "-K", ":", "-Z", "-l", "-H", "src=kcat", "-q",
		"-X", "batch.num.messages=10", file)
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	assert.Empty(t, res.Stderr, "-q: no warning for batch.num.messages")
	recs := recordByKey(kafkatest.ConsumeExactly(t, c, "t", 3))
	assert.Equal(t, "v1", string(recs["k1"].Value))
	assert.Nil(t, recs["k2"].Value, "-Z: an empty value is a tombstone")
	require.NotNil(t, recs["<nil>"], "-Z: an empty key is null")
	assert.Equal(t, "v3", string(recs["<nil>"].Value))
	assert.Equal(t, []string{"src=kcat"}, headerList(recs["k1"]))

	res = runKproduce(t, strings.NewReader("x\n"), "-P", "-b", kafkatest.Brokers(c), "-t", "u", "-X", "batch.num.messages=10")
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	assert.Equal(t, 1, strings.Count(res.Stderr, "batch.num.messages has no equivalent"), "without -q: one warning")
}

// TestE2EKcatConfigFile: -F kcat.conf, a librdkafka properties file: its
// names set brokers, linger, compression, acks, partitioner, timeouts.
func TestE2EKcatConfigFile(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	reqs := observeProduce(c)
	conf := fmt.Sprintf(`# ~/.config/kcat.conf
metadata.broker.list=%s
client.id=kcat-migrant
queue.buffering.max.ms=1
compression.codec=snappy
request.required.acks=1
partitioner=consistent_random
message.timeout.ms=30000
topic.metadata.refresh.interval.ms=60000
batch.num.messages=1000
`, kafkatest.Brokers(c))
	path := kafkatest.WriteFile(t, t.TempDir(), "kcat.conf", []byte(conf))
	const n = 60
	var in strings.Builder
	for i := range n {
		fmt.Fprintf(&in, "key-%d\tv%d\n", i, i)
	}
	res := runKproduce(t, strings.NewReader(in.String()), "-P", "-F", path, "-t", "t", "-K", `\t`)
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	assert.Equal(t, 1, strings.Count(res.Stderr, "WRN"), "one warning, for batch.num.messages: %s", res.Stderr)
	for _, r := range kafkatest.ConsumeExactly(t, c, "t", n) {
		assert.EqualValues(t, 2, r.Attrs.CompressionType(), "snappy")
		assert.EqualValues(t, crc32.ChecksumIEEE(r.Key)%6, r.Partition, "consistent_random: crc32 of the key, key %s", r.Key)
	}
	for _, req := range reqs.all() {
		assert.EqualValues(t, 1, req.Acks)
	}
}

// TestE2EKcatSecurity: librdkafka's security names with -X, as kcat users
// type them: SASL with sasl.mechanisms, sasl.username and sasl.password;
// TLS with ssl.ca.location, ssl.certificate.location, ssl.key.location;
// enable.ssl.certificate.verification=false; and a bad CA path reported
// before anything is sent.
func TestE2EKcatSecurity(t *testing.T) {
	certs := networktest.NewCertFiles(t)
	other := networktest.NewCertFiles(t)
	tests := []struct {
		name    string
		cluster []kfake.Opt
		consume []kgo.Opt
		props   []string
	}{
		{name: "SASL_PLAINTEXT SCRAM-SHA-256",
			cluster: []kfake.Opt{kfake.EnableSASL(), kfake.Superuser("SCRAM-SHA-256", saslUser, saslPass)},
			consume: []kgo.Opt{kgo.SASL(kgoSASL("SCRAM-SHA-256"))},
			props:   []string{"security.protocol=sasl_plaintext", "sasl.mechanisms=SCRAM-SHA-256", "sasl.username=" + saslUser, "sasl.password=" + saslPass}},
		{name: "SASL_SSL PLAIN with a CA location",
			cluster: []kfake.Opt{kfake.TLS(certs.ServerTLS(false)), kfake.EnableSASL(), kfake.Superuser("PLAIN", saslUser, saslPass)},
			consume: []kgo.Opt{kgo.DialTLSConfig(certs.ClientTLS()), kgo.SASL(kgoSASL("PLAIN"))},
			props: []string{"security.protocol=SASL_SSL", "sasl.mechanisms=PLAIN", "sasl.username=" + saslUser, "sasl.password=" + saslPass,
				"ssl.ca.location=" + certs.CA}},
		{name: "mutual TLS with certificate and key locations",
			cluster: []kfake.Opt{kfake.TLS(certs.ServerTLS(true))},
			consume: []kgo.Opt{kgo.DialTLSConfig(certs.ClientTLS())},
			props: []string{"security.protocol=ssl", "ssl.ca.location=" + certs.CA, "ssl.certificate.location=" + certs.ClientCert,
				"ssl.key.location=" + certs.ClientKey, "ssl.endpoint.identification.algorithm=https"}},
		{name: "certificate verification off",
			cluster: []kfake.Opt{kfake.TLS(other.ServerTLS(false))},
			consume: []kgo.Opt{kgo.DialTLSConfig(&tls.Config{InsecureSkipVerify: true})},
			props:   []string{"security.protocol=SSL", "enable.ssl.certificate.verification=false"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := securityCluster(t, tt.cluster...)
			args := []string{"-P", "-t", "t", "-b", strings.Join(c.ListenAddrs(), ","), "--log-level", "debug"}
			for _, p := range tt.props {
				args = append(args, "-X", p)
			}
			in, want := securityInput(tt.name, 10)
			res := runKproduce(t, strings.NewReader(in), args...)
			require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
			assert.NotContains(t, res.Stderr, saslPass, "the password is never logged")
			assert.NotContains(t, res.Stderr, "no effect", "every security property applies")
			assert.ElementsMatch(t, want, consumeSecure(t, c, "t", 10, tt.consume...))
		})
	}
	t.Run("a CA location that does not exist", func(t *testing.T) {
		c := securityCluster(t, kfake.TLS(certs.ServerTLS(false)))
		res := runKproduce(t, strings.NewReader("x\n"), "-t", "t", "-b", strings.Join(c.ListenAddrs(), ","), "-X", "security.protocol=ssl", "-X", "ssl.ca.location=/nonexistent/ca.pem")
		assert.Equal(t, cmdutil.ExitUsage, res.Code, res.Stderr)
		assert.Contains(t, res.Stderr, "/nonexistent/ca.pem")
		kafkatest.RequireEmpty(t, c, "t")
	})
	t.Run("without security.protocol a CA location has no effect, and says so", func(t *testing.T) {
		c := securityCluster(t)
		start := time.Now()
		res := runKproduce(t, strings.NewReader("x\n"), "-t", "t", "-b", strings.Join(c.ListenAddrs(), ","), "-X", "ssl.ca.location="+certs.CA)
		require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
		assert.Contains(t, res.Stderr, "ssl.ca.location has no effect without security.protocol=SSL or SASL_SSL (or --tls)")
		assert.Less(t, time.Since(start), time.Minute)
		kafkatest.ConsumeExactly(t, c, "t", 1)
	})
}
