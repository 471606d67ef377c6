package producecmd_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/kafkatest"
	"github.com/kproduce/kproduce/pkg/network/networktest"
)

// TestE2ERPKEnvironment: rpk's environment variables mean what their -X
// names mean: RPK_BROKERS alone finds the cluster (no warning, no wait on
// 127.0.0.1:9092); kproduce's own KPRODUCE_BROKERS beats it.
func TestE2ERPKEnvironment(t *testing.T) { // not parallel: it sets the environment
	c := kafkatest.ProducerCluster(t)
	t.Setenv("RPK_BROKERS", kafkatest.Brokers(c))
	res := runKproduce(t, strings.NewReader("a\nb\n"), "-t", "t")
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	assert.Empty(t, res.Stderr)
	assert.Len(t, kafkatest.Lines(res.Stdout), 2)
	kafkatest.ConsumeExactly(t, c, "t", 2)

	res = runKproduce(t, nil, "metadata", "-t", "t")
	require.Equal(t, cmdutil.ExitOK, res.Code, "subcommands read it too: %s", res.Stderr)

	t.Setenv("KPRODUCE_BROKERS", networktest.ClosedAddr(t))
	res = runKproduce(t, strings.NewReader("c\n"), "-t", "t", "--bootstrap-timeout", "1s")
	assert.Equal(t, cmdutil.ExitFailed, res.Code, "KPRODUCE_BROKERS beats RPK_BROKERS")
	assert.Contains(t, res.Stderr, "cannot reach the cluster")
}

// TestE2ERPKEnvironmentSecurity: RPK_TLS_*, RPK_SASL_MECHANISM, RPK_USER
// and RPK_PASS connect to a TLS and SCRAM cluster as rpk would, the
// password never printed.
func TestE2ERPKEnvironmentSecurity(t *testing.T) { // not parallel: it sets the environment
	certs := networktest.NewCertFiles(t)
	c := securityCluster(t, kfake.TLS(certs.ServerTLS(false)), kfake.EnableSASL(), kfake.Superuser("SCRAM-SHA-512", saslUser, saslPass))
	t.Setenv("RPK_BROKERS", strings.Join(c.ListenAddrs(), ","))
	t.Setenv("RPK_TLS_ENABLED", "true")
	t.Setenv("RPK_TLS_CA", certs.CA)
	t.Setenv("RPK_SASL_MECHANISM", "SCRAM-SHA-512")
	t.Setenv("RPK_USER", saslUser)
	t.Setenv("RPK_PASS", saslPass)
	in, want := securityInput("rpk", 20)
	res := runKproduce(t, strings.NewReader(in), "-t", "t", "--log-level", "debug")
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	assert.NotContains(t, res.Stderr, saslPass)
	assert.ElementsMatch(t, want, consumeSecure(t, c, "t", 20, kgo.DialTLSConfig(certs.ClientTLS()), kgo.SASL(kgoSASL("SCRAM-SHA-512"))))

	out := runKproduce(t, nil, "config")
	require.Equal(t, cmdutil.ExitOK, out.Code, out.Stderr)
	for _, want := range []string{"env RPK_BROKERS", "env RPK_TLS_ENABLED", "env RPK_TLS_CA", "env RPK_SASL_MECHANISM", "env RPK_USER", "env RPK_PASS"} {
		assert.Contains(t, out.Stdout, want)
	}
	assert.NotContains(t, out.Stdout, saslPass)
}
