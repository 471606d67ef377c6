package e2esasl

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/kafkatest"
	"github.com/kproduce/kproduce/internal/kafkatest/oidctest"
	"github.com/kproduce/kproduce/internal/kafkatest/saslfront"
)

// A token endpoint served over HTTPS by a private CA: trusted with
// --oauth-ca or librdkafka's https.ca.location, the client credentials
// grant works; without the CA, the run ends at once saying the
// certificate is not trusted and what to give.
func TestOAuthTokenEndpointOverHTTPS(t *testing.T) {
	iss, err := oidctest.NewIssuer(oidctest.Config{Clients: map[string]string{"app": "app-s3cret"}, Scopes: []string{"kafka"}, TLS: true})
	require.NoError(t, err)
	t.Cleanup(iss.Close)
	require.True(t, strings.HasPrefix(iss.TokenURL(), "https://"), iss.TokenURL())
	oauth, err := saslfront.OAuthBearer(saslfront.OAuthBearerConfig{JWKS: iss.JWKS(), Audience: "kafka", RequiredScopes: []string{"kafka"}})
	require.NoError(t, err)
	e := newEnvWith(t, iss, saslfront.Config{Mechanisms: []saslfront.Mechanism{oauth, saslfront.Plain(map[string]string{readerUser: readerPass})}}, 1)
	ca := writeFile(t, "idp-ca.pem", string(iss.CertificatePEM()))

	native := []string{"--oauth-token-endpoint", iss.TokenURL(), "--oauth-client-id", "app", "--oauth-client-secret", "app-s3cret", "--oauth-scope", "kafka"}
	librdkafka := []string{"-X", "security.protocol=SASL_PLAINTEXT", "-X", "sasl.mechanisms=OAUTHBEARER", "-X", "sasl.oauthbearer.method=oidc",
		"-X", "sasl.oauthbearer.token.endpoint.url=" + iss.TokenURL(), "-X", "sasl.oauthbearer.client.id=app",
		"-X", "sasl.oauthbearer.client.secret=app-s3cret", "-X", "sasl.oauthbearer.scope=kafka"}
	produced := 0
	for name, args := range map[string][]string{
		"--oauth-ca":        append(append([]string{}, native...), "--oauth-ca", ca),
		"https.ca.location": append(append([]string{}, librdkafka...), "-X", "https.ca.location="+ca),
	} {
		t.Run(name, func(t *testing.T) {
			res := run(t, strings.NewReader(kafkatest.NumberedLines(name, 2)), append([]string{"-b", e.brokers(), "-t", "t", "-p", "0", "-o", "none"}, args...)...)
			require.Equal(t, 0, res.Code, "stderr:\n%s", res.Stderr)
			produced += 2
			got := values(e.consume(produced))
			assert.Equal(t, []string{name + "-0", name + "-1"}, got[len(got)-2:])
		})
	}
	_, issued := iss.Requests()
	assert.Equal(t, 2, issued, "a token a run, over HTTPS")

	t.Run("the CA not given", func(t *testing.T) {
		res := run(t, strings.NewReader("a\n"), append([]string{"-b", e.brokers(), "-t", "t"}, native...)...)
		t.Logf("untrusted token endpoint: exit %d after %v: %s", res.Code, res.Took.Round(time.Millisecond), res.Stderr)
		assert.Equal(t, 1, res.Code, "stderr:\n%s", res.Stderr)
		assert.Contains(t, res.Stderr, "token endpoint "+iss.TokenURL()+": tls: failed to verify certificate")
		assert.Contains(t, res.Stderr, "--oauth-ca")
		assert.Less(t, res.Took, failureDeadline, "a certificate no retry can fix ends the run at once")
		assert.NotContains(t, res.Stderr, "app-s3cret")
	})
}
