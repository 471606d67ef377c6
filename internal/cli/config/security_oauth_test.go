package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/pkg/mskiam"
	"github.com/kproduce/kproduce/pkg/network"
	"github.com/kproduce/kproduce/pkg/oauth"
)

// Each tool's way of asking for OAUTHBEARER resolves to the same token
// source.
func TestOAuthBearerDialects(t *testing.T) {
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	require.NoError(t, os.WriteFile(tokenFile, []byte("tok"), 0o600))
	props := filepath.Join(dir, "client.properties")
	require.NoError(t, os.WriteFile(props, []byte(strings.Join([]string{
		"security.protocol=SASL_SSL",
		"sasl.mechanism=OAUTHBEARER",
		"sasl.login.callback.handler.class=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler",
		"sasl.oauthbearer.token.endpoint.url=https://idp.example/oauth2/token",
		`sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required clientId="app" clientSecret="s3cret" scope="kafka" extension_logicalCluster="lkc-1" extension_identityPoolId="pool-2";`,
	}, "\n")), 0o600))
	endpoint := OAuthOptions{TokenEndpoint: "https://idp.example/oauth2/token", ClientID: "app", ClientSecret: "s3cret", Scope: "kafka",
		Extensions: map[string]string{"logicalCluster": "lkc-1", "identityPoolId": "pool-2"}}
	tests := []struct {
		name string
		args []string
		want OAuthOptions
	}{
		{"native flags", []string{"--sasl-mechanism", "OAUTHBEARER", "--oauth-token-endpoint", "https://idp.example/oauth2/token",
			"--oauth-client-id", "app", "--oauth-client-secret", "s3cret", "--oauth-scope", "kafka",
			"--oauth-extension", "logicalCluster=lkc-1,identityPoolId=pool-2"}, endpoint},
		{"Java properties file", []string{"--config", props}, endpoint},
		{"Java 4.1 names", []string{"-X", "security.protocol=SASL_PLAINTEXT", "-X", "sasl.mechanism=OAUTHBEARER",
			"-X", "sasl.oauthbearer.token.endpoint.url=https://idp.example/oauth2/token",
			"-X", "sasl.oauthbearer.client.credentials.client.id=app", "-X", "sasl.oauthbearer.client.credentials.client.secret=s3cret",
			"-X", "sasl.oauthbearer.scope=kafka", "-X", "sasl.oauthbearer.extensions=logicalCluster=lkc-1,identityPoolId=pool-2"}, endpoint},
		{"librdkafka names", []string{"-X", "security.protocol=sasl_ssl", "-X", "sasl.mechanisms=OAUTHBEARER", "-X", "sasl.oauthbearer.method=oidc",
			"-X", "sasl.oauthbearer.token.endpoint.url=https://idp.example/oauth2/token", "-X", "sasl.oauthbearer.client.id=app",
			"-X", "sasl.oauthbearer.client.secret=s3cret", "-X", "sasl.oauthbearer.scope=kafka",
			"-X", "sasl.oauthbearer.extensions=logicalCluster=lkc-1,identityPoolId=pool-2"}, endpoint},
		{"Java file:// endpoint", []string{"-X", "sasl.mechanism=OAUTHBEARER", "-X", "security.protocol=SASL_PLAINTEXT",
			"-X", "sasl.oauthbearer.token.endpoint.url=file://" + tokenFile}, OAuthOptions{TokenFile: tokenFile}},
		{"rpk token:JWT", []string{"--sasl-mechanism", "OAUTHBEARER", "--sasl-password", "token:eyJ.x.y"}, OAuthOptions{Token: "eyJ.x.y"}},
		{"rpk -X", []string{"-X", "sasl.mechanism=OAUTHBEARER", "-X", "pass=eyJ.x.y"}, OAuthOptions{Token: "eyJ.x.y"}},
		{"a token source implies OAUTHBEARER", []string{"--sasl-token-file", tokenFile}, OAuthOptions{TokenFile: tokenFile}},
		{"librdkafka unsecured JWT", []string{"-X", "security.protocol=SASL_PLAINTEXT", "-X", "sasl.mechanism=OAUTHBEARER",
			"-X", "enable.sasl.oauthbearer.unsecure.jwt=true", "-X", "sasl.oauthbearer.config=principal=admin lifeSeconds=600 scope=a,b extension_k=v"},
			OAuthOptions{UnsecuredJWT: "principal=admin lifeSeconds=600 scope=a,b extension_k=v"}},
		{"Java unsecured login", []string{"-X", "security.protocol=SASL_PLAINTEXT", "-X", "sasl.mechanism=OAUTHBEARER",
			"-X", `sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required unsecuredLoginStringClaim_sub="admin";`},
			OAuthOptions{UnsecuredJWT: "principal=admin"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, stderr := securityOptions(t, tt.args...)
			assert.Empty(t, stderr)
			assert.Equal(t, network.MechanismOAuthBearer, s.SASLMechanism)
			got := s.OAuth
			got.ConnectTimeout, got.ReadTimeout, got.RetryBackoff, got.RetryBackoffMax, got.CA = 0, 0, 0, 0, ""
			assert.Equal(t, tt.want, got)
			mech, ok := s.SASL.(network.OAuthBearerMechanism)
			require.True(t, ok, "%T", s.SASL)
			switch {
			case tt.want.TokenEndpoint != "":
				assert.IsType(t, &oauth.ClientCredentials{}, mech.Tokens)
			case tt.want.TokenFile != "":
				assert.IsType(t, &oauth.File{}, mech.Tokens)
			case tt.want.UnsecuredJWT != "":
				assert.IsType(t, &oauth.Unsecured{}, mech.Tokens)
			default:
				assert.IsType(t, &oauth.Static{}, mech.Tokens)
			}
		})
	}
}

func TestAWSMSKIAMDialects(t *testing.T) {
	for name, args := range map[string][]string{
		"native flags": {"--sasl-mechanism", "AWS_MSK_IAM", "--aws-profile", "kafka", "--aws-role-arn", "arn:aws:iam::1:role/w",
			"--aws-role-session-name", "etl", "--aws-region", "eu-west-1"},
		"Java properties": {"-X", "security.protocol=SASL_SSL", "-X", "sasl.mechanism=AWS_MSK_IAM", "--aws-region", "eu-west-1",
			"-X", `sasl.jaas.config=software.amazon.msk.auth.iam.IAMLoginModule required awsProfileName="kafka" awsRoleArn="arn:aws:iam::1:role/w" awsRoleSessionName="etl";`,
			"-X", "sasl.client.callback.handler.class=software.amazon.msk.auth.iam.IAMClientCallbackHandler"},
	} {
		t.Run(name, func(t *testing.T) {
			s, stderr := securityOptions(t, args...)
			assert.Empty(t, stderr)
			assert.Equal(t, AWSOptions{Region: "eu-west-1", Profile: "kafka", RoleARN: "arn:aws:iam::1:role/w", RoleSessionName: "etl"}, s.AWS)
			assert.IsType(t, &mskiam.Mechanism{}, s.SASL)
		})
	}
}

// A misconfiguration is a usage error naming what is wrong, never
// quoting a secret.
func TestOAuthBearerUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--sasl-mechanism", "OAUTHBEARER"}, "OAUTHBEARER needs a token source: --sasl-token"},
		{[]string{"--sasl-mechanism", "OAUTHBEARER", "--sasl-token", "a", "--oauth-token-endpoint", "https://x/t"}, "one token source, got --sasl-token and --oauth-token-endpoint"},
		{[]string{"--oauth-token-endpoint", "https://x/t", "--oauth-client-id", "c"}, "needs --oauth-client-id and --oauth-client-secret"},
		{[]string{"--sasl-mechanism", "PLAIN", "--sasl-username", "u", "--sasl-password", "p", "--sasl-token", "s3cret-token"}, "--sasl-token: invalid value: needs --sasl-mechanism OAUTHBEARER (got PLAIN)"},
		{[]string{"--sasl-token-file", "/nonexistent/token"}, "--sasl-token-file: stat /nonexistent/token: no such file or directory"},
		{[]string{"--oauth-token-endpoint", "ftp://x", "--oauth-client-id", "c", "--oauth-client-secret", "s3cret-secret"}, "want https://host/path"},
		{[]string{"--sasl-token", "t", "--oauth-extension", "auth=x"}, `SASL extension name "auth"`},
		{[]string{"--sasl-token", "t", "--oauth-extension", "novalue"}, "want KEY=VALUE"},
		{[]string{"--sasl-unsecured-jwt", "lifeSeconds=5"}, "principal=NAME is required"},
		{[]string{"-X", "sasl.mechanism=OAUTHBEARER", "-X", "security.protocol=SASL_PLAINTEXT", "-X", "sasl.oauthbearer.method=magic"}, `sasl.oauthbearer.method "magic"`},
		{[]string{"-X", "sasl.mechanism=OAUTHBEARER", "-X", "security.protocol=SASL_PLAINTEXT", "-X", "enable.sasl.oauthbearer.unsecure.jwt=true"}, "needs sasl.oauthbearer.config"},
		{[]string{"--sasl-token", "t", "-X", "security.protocol=SASL_PLAINTEXT", "-X", "sasl.login.callback.handler.class=com.example.MyHandler"}, "com.example.MyHandler is not supported"},
		{[]string{"-X", "sasl.mechanism=GSSAPI", "-X", "security.protocol=SASL_PLAINTEXT", "--kerberos-ccache", "/nonexistent/krb5cc"}, "run kinit PRINCIPAL first"},
	}
	for _, tt := range tests {
		_, _, err := parseOptions(t, append([]string{"-t", "t"}, tt.args...)...)
		require.Error(t, err, "%v", tt.args)
		assert.True(t, cmdutil.IsUsageError(err), "%v: %v", tt.args, err)
		assert.Contains(t, err.Error(), tt.want)
		assert.NotContains(t, err.Error(), "s3cret")
	}
}

// kproduce config shows the token and the client secret redacted, with
// their origins, whether they come from a flag, the environment or a JAAS
// config.
func TestOAuthSecretsRedacted(t *testing.T) {
	t.Setenv("KPRODUCE_OAUTH_CLIENT_SECRET", "env-s3cret")
	settings := func(args ...string) map[string]Setting {
		d, stderr := describe(t, args...)
		assert.NotContains(t, stderr, "s3cret")
		byName := map[string]Setting{}
		for _, s := range d.Settings {
			byName[s.Name] = s
			assert.NotContains(t, s.Value, "s3cret", s.Name)
		}
		return byName
	}
	byName := settings("--oauth-token-endpoint", "https://idp/t", "--oauth-client-id", "app")
	assert.Equal(t, "[redacted]", byName["oauth-client-secret"].Value)
	assert.Equal(t, "env KPRODUCE_OAUTH_CLIENT_SECRET", byName["oauth-client-secret"].Origin)
	byName = settings("--oauth-token-endpoint", "https://idp/t", "--oauth-client-id", "app", "-X",
		`sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required clientSecret="jaas-s3cret";`,
		"-X", "security.protocol=SASL_PLAINTEXT", "-X", "sasl.oauthbearer.client.secret=rdk-s3cret")
	assert.Equal(t, "[redacted]", byName["oauth-client-secret"].Value)
	assert.Contains(t, byName["property"].Value, `clientSecret="[redacted]"`)
	assert.Contains(t, byName["property"].Value, `sasl.oauthbearer.client.secret=[redacted]`)

	// A password in the token endpoint's URL, given as a flag or a property.
	byName = settings("--oauth-token-endpoint", "https://app:url-s3cret@idp/t", "--oauth-client-id", "app")
	assert.Equal(t, "https://app:[redacted]@idp/t", byName["oauth-token-endpoint"].Value)
	byName = settings("-X", "security.protocol=SASL_PLAINTEXT", "-X", "sasl.mechanism=OAUTHBEARER",
		"-X", "sasl.oauthbearer.token.endpoint.url=https://app:url-s3cret@idp/t", "-X", "sasl.oauthbearer.client.id=app")
	assert.Equal(t, "https://app:[redacted]@idp/t", byName["oauth-token-endpoint"].Value)
	assert.Contains(t, byName["property"].Value, "sasl.oauthbearer.token.endpoint.url=https://app:[redacted]@idp/t")

	d, _ := describe(t, "--sasl-token", "tok-s3cret")
	for _, s := range d.Settings {
		if s.Name == "sasl-token" {
			assert.Equal(t, "[redacted]", s.Value)
			assert.Equal(t, "flag --sasl-token", s.Origin)
		}
		assert.NotContains(t, s.Value, "s3cret")
	}
}
