package saslfront_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jcmturner/gokrb5/v8/client"
	"github.com/jcmturner/gokrb5/v8/config"
	"github.com/jcmturner/gokrb5/v8/keytab"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/kerberos"

	"github.com/kproduce/kproduce/internal/kafkatest"
	"github.com/kproduce/kproduce/internal/kafkatest/krb5test"
	"github.com/kproduce/kproduce/internal/kafkatest/saslfront"
)

// kerberosRealm is a KDC with a client principal and the brokers'
// service principal kafka/127.0.0.1, and their keytabs.
type kerberosRealm struct {
	kdc                         *krb5test.KDC
	clientKeytab, serviceKeytab string
}

func newKerberosRealm(t *testing.T) *kerberosRealm {
	t.Helper()
	k := krb5test.Start(t)
	k.AddPrincipal(t, "client")
	k.AddPrincipal(t, "kafka/127.0.0.1")
	k.AddPrincipal(t, "kafka/localhost")
	return &kerberosRealm{kdc: k, clientKeytab: k.Keytab(t, "client.keytab", "client"),
		serviceKeytab: k.Keytab(t, "kafka.keytab", "kafka/127.0.0.1", "kafka/localhost")}
}

// front is the GSSAPI mechanism with the service keytab.
func (r *kerberosRealm) mechanism(t *testing.T) saslfront.Mechanism {
	t.Helper()
	kt, err := keytab.Load(r.serviceKeytab)
	require.NoError(t, err)
	return saslfront.GSSAPI(saslfront.GSSAPIConfig{Keytab: kt})
}

// franzKerberos is franz-go's kerberos plugin logged in with the client
// keytab.
func (r *kerberosRealm) franzKerberos(t *testing.T) *kerberos.Auth {
	t.Helper()
	cfg, err := config.Load(r.kdc.Conf)
	require.NoError(t, err)
	kt, err := keytab.Load(r.clientKeytab)
	require.NoError(t, err)
	cl := client.NewWithKeytab("client", krb5test.Realm, kt, cfg, client.DisablePAFXFAST(true))
	require.NoError(t, cl.Login())
	t.Cleanup(cl.Destroy)
	return &kerberos.Auth{Client: cl, Service: "kafka"}
}

// TestGSSAPIFrontWithFranzGo: franz-go's kerberos plugin (gokrb5's
// initiator, no mutual authentication) produces and reads back through
// the front; a ticket for another host's principal is refused.
func TestGSSAPIFrontWithFranzGo(t *testing.T) {
	r := newKerberosRealm(t)
	front, cluster := startFront(t, saslfront.Config{Mechanisms: []saslfront.Mechanism{r.mechanism(t)}}, 2)
	require.NoError(t, produceConsume(t, cluster, r.franzKerberos(t).AsMechanism(), 5))
	var authenticated []string
	for _, c := range front.Connections() {
		if c.Authentications > 0 {
			authenticated = append(authenticated, c.Principal)
		}
	}
	require.NotEmpty(t, authenticated)
	for _, p := range authenticated {
		assert.Equal(t, "client@"+krb5test.Realm, p)
	}

	// Seeded as localhost, the client asks for kafka/localhost; the
	// broker it reaches is kafka/127.0.0.1.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	addr := strings.Replace(cluster.ListenAddrs()[0], "127.0.0.1", "localhost", 1)
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.SASL(r.franzKerberos(t).AsMechanism()), kgo.RequestRetries(0))
	require.NoError(t, err)
	defer cl.Close()
	err = cl.Ping(ctx)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the ticket is for kafka/localhost, this broker is kafka/127.0.0.1")
}

// TestGSSAPIFrontWithKcat: Debian's kcat (librdkafka with cyrus-sasl and
// MIT's GSS-API, which asks for mutual authentication) logs in with the
// same keytab through librdkafka's kinit command, authenticates through
// the front and produces a record that franz-go reads back.
func TestGSSAPIFrontWithKcat(t *testing.T) {
	kcat := kafkatest.RequireTool(t, "kcat", "kcat")
	requireCyrusGSSAPI(t)
	r := newKerberosRealm(t)
	front, cluster := startFront(t, saslfront.Config{Mechanisms: []saslfront.Mechanism{r.mechanism(t)}}, 1)
	ccache := filepath.Join(t.TempDir(), "kcat-ccache")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, kcat, "-P", "-b", cluster.ListenAddrs()[0], "-t", "t", "-p", "0",
		"-X", "security.protocol=SASL_PLAINTEXT", "-X", "sasl.mechanisms=GSSAPI", "-X", "sasl.kerberos.service.name=kafka",
		"-X", "sasl.kerberos.keytab="+r.clientKeytab, "-X", "sasl.kerberos.principal=client@"+krb5test.Realm)
	cmd.Env = r.kdc.Env("KRB5CCNAME=FILE:" + ccache)
	cmd.Stdin = strings.NewReader("from-kcat\n")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "kcat: %s", out)

	cl, err := kgo.NewClient(kgo.SeedBrokers(cluster.ListenAddrs()...), kgo.SASL(r.franzKerberos(t).AsMechanism()),
		kgo.ConsumeTopics("t"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	require.NoError(t, err)
	defer cl.Close()
	fetches := cl.PollFetches(ctx)
	require.NoError(t, fetches.Err0())
	require.Equal(t, 1, fetches.NumRecords())
	assert.Equal(t, "from-kcat", string(fetches.Records()[0].Value))
	mutual := false
	for _, c := range front.Connections() {
		mutual = mutual || c.Principal == "client@"+krb5test.Realm
	}
	assert.True(t, mutual, "kcat's connection authenticated as the client principal")
}

// requireCyrusGSSAPI fails or skips the test when cyrus-sasl's GSSAPI
// plugin (libsasl2-modules-gssapi-mit) is missing.
func requireCyrusGSSAPI(t *testing.T) {
	t.Helper()
	if m, _ := filepath.Glob("/usr/lib/*/sasl2/libgssapiv2.so*"); len(m) > 0 {
		return
	}
	kafkatest.RequireTool(t, "cyrus-sasl-gssapi-plugin-missing", "libsasl2-modules-gssapi-mit")
}
