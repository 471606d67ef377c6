package e2esasl

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/kafkatest"
)

// Every token source, in every tool's dialect, authenticates kproduce
// through the front, and the records are read back.
func TestOAuthBearerTokenSources(t *testing.T) {
	ext := map[string]string{"logicalCluster": "lkc-1", "identityPoolId": "pool-2"}
	e := newEnv(t, envConfig{Extensions: ext})
	token := e.issuer.Token("static-user", "kafka", time.Hour)
	tokenFile := writeFile(t, "token", token+"\n")
	extFlags := []string{"--oauth-extension", "logicalCluster=lkc-1", "--oauth-extension", "identityPoolId=pool-2"}
	extProp := []string{"-X", "sasl.oauthbearer.extensions=logicalCluster=lkc-1,identityPoolId=pool-2"}
	javaProps := writeFile(t, "client.properties", strings.Join([]string{
		"security.protocol=SASL_PLAINTEXT",
		"sasl.mechanism=OAUTHBEARER",
		"sasl.login.callback.handler.class=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler",
		"sasl.oauthbearer.token.endpoint.url=" + e.issuer.TokenURL(),
		`sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required \`,
		`  clientId="app" clientSecret="app-s3cret" scope="kafka" extension_logicalCluster="lkc-1" extension_identityPoolId="pool-2";`,
	}, "\n"))
	kcatConf := writeFile(t, "kcat.conf", strings.Join([]string{
		"security.protocol=sasl_plaintext", "sasl.mechanisms=OAUTHBEARER", "sasl.oauthbearer.method=oidc",
		"sasl.oauthbearer.client.id=app", "sasl.oauthbearer.client.secret=app-s3cret", "sasl.oauthbearer.scope=kafka",
		"sasl.oauthbearer.token.endpoint.url=" + e.issuer.TokenURL(),
		"sasl.oauthbearer.extensions=logicalCluster=lkc-1,identityPoolId=pool-2",
	}, "\n"))
	tests := []struct {
		name      string
		args      []string
		env       map[string]string
		principal string
	}{
		{"static token", append([]string{"--sasl-mechanism", "OAUTHBEARER", "--sasl-token", token}, extFlags...), nil, "static-user"},
		{"static token from the environment", extFlags, map[string]string{"KPRODUCE_SASL_TOKEN": token, "KPRODUCE_SASL_MECHANISM": "OAUTHBEARER"}, "static-user"},
		{"token file", append([]string{"--sasl-token-file", tokenFile}, extFlags...), nil, "static-user"},
		{"Java file:// endpoint", append([]string{"-X", "security.protocol=SASL_PLAINTEXT", "-X", "sasl.mechanism=OAUTHBEARER",
			"-X", "sasl.oauthbearer.token.endpoint.url=file://" + tokenFile}, extFlags...), nil, "static-user"},
		{"client credentials, native flags", append([]string{"--oauth-token-endpoint", e.issuer.TokenURL(), "--oauth-client-id", "app",
			"--oauth-scope", "kafka"}, extFlags...), map[string]string{"KPRODUCE_OAUTH_CLIENT_SECRET": "app-s3cret"}, "app"},
		{"client credentials, Java producer.properties", []string{"--config", javaProps}, nil, "app"},
		{"client credentials, Java 4.1 names", append([]string{"-X", "security.protocol=SASL_PLAINTEXT", "-X", "sasl.mechanism=OAUTHBEARER",
			"-X", "sasl.oauthbearer.token.endpoint.url=" + e.issuer.TokenURL(), "-X", "sasl.oauthbearer.client.credentials.client.id=app",
			"-X", "sasl.oauthbearer.client.credentials.client.secret=app-s3cret", "-X", "sasl.oauthbearer.scope=kafka"}, extProp...), nil, "app"},
		{"client credentials, kcat config file", []string{"-F", kcatConf}, nil, "app"},
		{"rpk token:JWT password", append([]string{"--sasl-mechanism", "OAUTHBEARER", "--sasl-password", "token:" + token}, extFlags...), nil, "static-user"},
		{"librdkafka unsecured JWT", []string{"-X", "security.protocol=SASL_PLAINTEXT", "-X", "sasl.mechanisms=OAUTHBEARER",
			"-X", "enable.sasl.oauthbearer.unsecure.jwt=true",
			"-X", "sasl.oauthbearer.config=principal=dev-admin lifeSeconds=600 scope=kafka,other extension_logicalCluster=lkc-1 extension_identityPoolId=pool-2"},
			nil, "dev-admin"},
	}
	produced := 0
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			before := len(e.conns(tt.principal))
			prefix := strings.ReplaceAll(tt.name, " ", "_")
			args := append([]string{"-b", e.brokers(), "-t", "t", "-p", "0", "-o", "none"}, tt.args...)
			res := run(t, strings.NewReader(kafkatest.NumberedLines(prefix, 3)), args...)
			require.Equal(t, 0, res.Code, "stderr:\n%s", res.Stderr)
			assert.NotContains(t, res.Stderr, token)
			assert.NotContains(t, res.Stderr, "app-s3cret")
			produced += 3
			got := values(e.consume(produced))
			assert.Equal(t, []string{prefix + "-0", prefix + "-1", prefix + "-2"}, got[len(got)-3:], "case %d", i)
			conns := e.conns(tt.principal)
			assert.Greater(t, len(conns), before, "kproduce authenticated as %s", tt.principal)
			for _, c := range conns {
				assert.Equal(t, "OAUTHBEARER", c.Mechanism)
				assert.Empty(t, c.Violation)
			}
		})
	}
	_, issued := e.issuer.Requests()
	assert.Equal(t, 4, issued, "one token per client credentials run, shared by its connections")
}
