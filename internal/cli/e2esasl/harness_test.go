package e2esasl

import (
	"context"
	"io"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/plain"

	"github.com/kproduce/kproduce/internal/cli"
	"github.com/kproduce/kproduce/internal/kafkatest"
	"github.com/kproduce/kproduce/internal/kafkatest/oidctest"
	"github.com/kproduce/kproduce/internal/kafkatest/saslfront"
)

// The reader's credentials: every front also serves PLAIN for the kgo
// client that reads the records back.
const readerUser, readerPass = "reader", "reader-pass"

// env is one test's world: an authorization server, a front and the
// cluster behind it.
type env struct {
	t       *testing.T
	issuer  *oidctest.Issuer
	front   *saslfront.Front
	cluster *kfake.Cluster
}

// envConfig says what the front accepts.
type envConfig struct {
	// SessionLifetime is the front's connections.max.reauth.ms.
	SessionLifetime time.Duration
	// TokenLifetime is the issuer's expires_in (default 1h).
	TokenLifetime time.Duration
	// Extensions are the SASL extensions OAUTHBEARER requires.
	Extensions map[string]string
	// Extra are more mechanisms (SCRAM, AWS_MSK_IAM).
	Extra []saslfront.Mechanism
	// Brokers is the number of brokers (default 3).
	Brokers int
}

// newEnv starts the issuer, the front (OAUTHBEARER with the issuer's
// keys, unsecured tokens too, audience kafka, scope kafka; PLAIN for the
// reader) and a cluster with topic "t" of 3 partitions.
func newEnv(t *testing.T, cfg envConfig) *env {
	t.Helper()
	iss, err := oidctest.NewIssuer(oidctest.Config{Clients: map[string]string{"app": "app-s3cret"}, Scopes: []string{"kafka", "other"},
		Lifetime: cfg.TokenLifetime})
	require.NoError(t, err)
	t.Cleanup(iss.Close)
	oauth, err := saslfront.OAuthBearer(saslfront.OAuthBearerConfig{JWKS: iss.JWKS(), AllowUnsecured: true, Audience: "kafka",
		RequiredScopes: []string{"kafka"}, RequiredExtensions: cfg.Extensions})
	require.NoError(t, err)
	mechs := append([]saslfront.Mechanism{oauth, saslfront.Plain(map[string]string{readerUser: readerPass})}, cfg.Extra...)
	if cfg.Brokers == 0 {
		cfg.Brokers = 3
	}
	return newEnvWith(t, iss, saslfront.Config{Mechanisms: mechs, SessionLifetime: cfg.SessionLifetime}, cfg.Brokers)
}

// newEnvWith starts a front configured by frontCfg and a cluster of
// brokers behind it, with topic "t" of 3 partitions; iss may be nil. The
// front must serve PLAIN for the reader.
func newEnvWith(t *testing.T, iss *oidctest.Issuer, frontCfg saslfront.Config, brokers int) *env {
	t.Helper()
	front := saslfront.New(frontCfg)
	t.Cleanup(front.Close) // after the cluster: cleanups run last in, first out
	cluster := kafkatest.NewCluster(t, kfake.ListenFn(front.Listen), kfake.NumBrokers(brokers), kfake.SeedTopics(3, "t"),
		kfake.AllowAutoTopicCreation())
	return &env{t: t, issuer: iss, front: front, cluster: cluster}
}

// brokers is the -b value.
func (e *env) brokers() string { return kafkatest.Brokers(e.cluster) }

// run runs kproduce in-process with stdin and args, as main does; a run
// that does not end within kafkatest.RunDeadline fails the test.
func run(t *testing.T, stdin io.Reader, args ...string) kafkatest.Result {
	t.Helper()
	return kafkatest.Run(t, context.Background(), cli.Execute, stdin, args...)
}

// consume reads every record of topic "t" until n arrived, as the reader.
func (e *env) consume(n int) []*kgo.Record {
	e.t.Helper()
	return kafkatest.ConsumeAll(e.t, e.cluster.ListenAddrs(), "t", n, kgo.SASL(plain.Auth{User: readerUser, Pass: readerPass}.AsMechanism()))
}

// values are the records' values, in order.
func values(recs []*kgo.Record) []string {
	out := make([]string, 0, len(recs))
	for _, r := range recs {
		out = append(out, string(r.Value))
	}
	return out
}

// kproduceConns are the front's connections of the clients that
// authenticated as principal.
func (e *env) conns(principal string) []saslfront.ConnStats {
	var out []saslfront.ConnStats
	for _, c := range e.front.Connections() {
		if c.Principal == principal {
			out = append(out, c)
		}
	}
	return out
}

// writeFile writes content to a new file of the test and returns its path.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	return kafkatest.WriteFile(t, t.TempDir(), name, []byte(content))
}

// getenv is os.Getenv.
func getenv(name string) string { return os.Getenv(name) }

// writeTo writes content to path.
func writeTo(path, content string) error { return os.WriteFile(path, []byte(content), 0o600) }
