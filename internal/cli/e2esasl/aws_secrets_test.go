package e2esasl

import (
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/kafkatest"
	"github.com/kproduce/kproduce/internal/kafkatest/awstest"
	"github.com/kproduce/kproduce/internal/kafkatest/saslfront"
)

// AWS_MSK_IAM through the front: the environment's credentials, a shared
// credentials profile, and a role assumed through STS, each in kproduce's
// flags and in Java's JAAS.
func TestAWSMSKIAM(t *testing.T) {
	awstest.Isolate(t)
	sts := awstest.NewSTS(awstest.Credentials{AccessKeyID: "ASIAROLE", SecretAccessKey: "role-s3cret", SessionToken: "role-token", Lifetime: time.Hour})
	defer sts.Close()
	mech := saslfront.AWSIAM(saslfront.AWSIAMConfig{Region: "eu-west-1", Credentials: map[string]saslfront.AWSCredential{
		"AKIDENV":  {SecretKey: "env-s3cret"},
		"AKIDPROF": {SecretKey: "profile-s3cret"},
		"ASIAROLE": {SecretKey: "role-s3cret", SessionToken: "role-token", Principal: "kafka-writer"},
	}})
	e := newEnv(t, envConfig{Extra: []saslfront.Mechanism{mech}, SessionLifetime: time.Hour})
	writeAWS := func(name, content string) {
		path := map[string]string{"credentials": "AWS_SHARED_CREDENTIALS_FILE", "config": "AWS_CONFIG_FILE"}[name]
		require.NoError(t, writeTo(getenv(path), content))
	}
	writeAWS("credentials", "[kafka]\naws_access_key_id = AKIDPROF\naws_secret_access_key = profile-s3cret\n")
	writeAWS("config", "[profile kafka]\nregion = eu-west-1\n")
	tests := []struct {
		name      string
		args      []string
		env       map[string]string
		principal string
	}{
		{"environment credentials", []string{"--sasl-mechanism", "AWS_MSK_IAM", "--aws-region", "eu-west-1"},
			map[string]string{"AWS_ACCESS_KEY_ID": "AKIDENV", "AWS_SECRET_ACCESS_KEY": "env-s3cret"}, "AKIDENV"},
		{"AWS_REGION", []string{"--sasl-mechanism", "AWS_MSK_IAM"},
			map[string]string{"AWS_ACCESS_KEY_ID": "AKIDENV", "AWS_SECRET_ACCESS_KEY": "env-s3cret", "AWS_REGION": "eu-west-1"}, "AKIDENV"},
		{"profile", []string{"--sasl-mechanism", "AWS_MSK_IAM", "--aws-profile", "kafka"}, nil, "AKIDPROF"},
		{"Java JAAS with a role", []string{"-X", "security.protocol=SASL_PLAINTEXT", "-X", "sasl.mechanism=AWS_MSK_IAM", "--aws-region", "eu-west-1",
			"-X", `sasl.jaas.config=software.amazon.msk.auth.iam.IAMLoginModule required awsProfileName="kafka" awsRoleArn="arn:aws:iam::123456789012:role/kafka-writer";`,
			"-X", "sasl.client.callback.handler.class=software.amazon.msk.auth.iam.IAMClientCallbackHandler"},
			map[string]string{"AWS_ENDPOINT_URL_STS": sts.URL()}, "kafka-writer"},
	}
	produced := 0
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			prefix := strings.ReplaceAll(tt.name, " ", "_")
			res := run(t, strings.NewReader(kafkatest.NumberedLines(prefix, 2)), append([]string{"-b", e.brokers(), "-t", "t", "-p", "0", "-o", "none"}, tt.args...)...)
			require.Equal(t, 0, res.Code, "stderr:\n%s", res.Stderr)
			produced += 2
			got := values(e.consume(produced))
			assert.Equal(t, []string{prefix + "-0", prefix + "-1"}, got[len(got)-2:])
			assert.NotEmpty(t, e.conns(tt.principal))
			assert.NotContains(t, res.Stderr, "s3cret")
		})
	}
	assert.Equal(t, []string{"arn:aws:iam::123456789012:role/kafka-writer"}, sts.Roles())
}

// Secrets never appear, at any log level, in --dry-run, in kproduce
// config, or in a failure.
func TestSecretsNeverShown(t *testing.T) {
	e := newEnv(t, envConfig{})
	token := e.issuer.Token("app", "kafka", time.Hour)
	secrets := []string{token, "app-s3cret", "pw-s3cret"}
	check := func(t *testing.T, res kafkatest.Result) {
		t.Helper()
		for _, s := range secrets {
			assert.NotContains(t, res.Stdout+res.Stderr, s)
		}
	}
	for _, level := range []string{"trace", "debug"} {
		res := run(t, strings.NewReader("a\n"), "-b", e.brokers(), "-t", "t", "--log-level", level, "--sasl-token", token)
		require.Equal(t, 0, res.Code, res.Stderr)
		assert.Contains(t, res.Stderr, "SaslAuthenticate", "the exchange is logged")
		check(t, res)
		res = run(t, strings.NewReader("a\n"), "-b", e.brokers(), "-t", "t", "--log-level", level, "--oauth-token-endpoint", e.issuer.TokenURL(),
			"--oauth-client-id", "app", "--oauth-client-secret", "app-s3cret", "--oauth-scope", "kafka")
		require.Equal(t, 0, res.Code, res.Stderr)
		check(t, res)
		// A password in the endpoint's URL (the client id and secret go in
		// the Authorization header all the same).
		withPassword := strings.Replace(e.issuer.TokenURL(), "://", "://app:url-s3cret@", 1)
		res = run(t, strings.NewReader("a\n"), "-b", e.brokers(), "-t", "t", "--log-level", level, "--oauth-token-endpoint", withPassword,
			"--oauth-client-id", "app", "--oauth-client-secret", "app-s3cret", "--oauth-scope", "kafka")
		require.Equal(t, 0, res.Code, res.Stderr)
		assert.Contains(t, res.Stderr, "app:[redacted]@", "the endpoint is logged")
		assert.NotContains(t, res.Stderr, "url-s3cret")
		check(t, res)
	}
	res := run(t, strings.NewReader("a\n"), "-b", e.brokers(), "-t", "t", "--dry-run", "--partitions", "3", "--sasl-token", token, "--log-level", "debug")
	require.Equal(t, 0, res.Code, res.Stderr)
	check(t, res)
	res = run(t, nil, "config", "--sasl-token", token, "--oauth-client-secret", "app-s3cret",
		"-X", `sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="pw-s3cret";`)
	require.Equal(t, 0, res.Code, res.Stderr)
	assert.Contains(t, res.Stdout, "[redacted]")
	check(t, res)
	res = run(t, nil, "config", "-o", "json", "--sasl-token", token)
	require.Equal(t, 0, res.Code, res.Stderr)
	check(t, res)
	for _, args := range [][]string{{"config"}, {"config", "--json"}} {
		res = run(t, nil, append(args, "--oauth-token-endpoint", "https://app:url-s3cret@idp/token", "--oauth-client-id", "app", "--oauth-client-secret", "app-s3cret")...)
		require.Equal(t, 0, res.Code, res.Stderr)
		assert.NotContains(t, res.Stdout+res.Stderr, "url-s3cret")
		assert.Contains(t, res.Stdout, "app:[redacted]@idp/token")
	}
}

// kcat (librdkafka) is a client of the front as independent of kproduce
// as kgo: its OIDC client credentials and its unsecured JWT authenticate,
// and a wrong secret does not. Skipped without kcat.
func TestKcatThroughTheFront(t *testing.T) {
	kcat, err := exec.LookPath("kcat")
	if err != nil {
		t.Skip("kcat is not installed")
	}
	e := newEnv(t, envConfig{Extensions: map[string]string{"logicalCluster": "lkc-1"}, Brokers: 1})
	common := []string{"-P", "-b", e.brokers(), "-t", "t", "-p", "0", "-X", "security.protocol=SASL_PLAINTEXT", "-X", "sasl.mechanisms=OAUTHBEARER"}
	oidc := []string{"-X", "sasl.oauthbearer.method=oidc", "-X", "sasl.oauthbearer.client.id=app",
		"-X", "sasl.oauthbearer.token.endpoint.url=" + e.issuer.TokenURL(), "-X", "sasl.oauthbearer.scope=kafka",
		"-X", "sasl.oauthbearer.extensions=logicalCluster=lkc-1"}
	runKcat := func(input string, args ...string) (string, error) {
		cmd := exec.Command(kcat, append(common, args...)...)
		cmd.Stdin = strings.NewReader(input)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := runKcat("kcat-unsecured\n", "-X", "enable.sasl.oauthbearer.unsecure.jwt=true",
		"-X", "sasl.oauthbearer.config=principal=kcat-dev scope=kafka extension_logicalCluster=lkc-1")
	require.NoError(t, err, out)
	assert.Equal(t, []string{"kcat-unsecured"}, values(e.consume(1)))
	assert.NotEmpty(t, e.conns("kcat-dev"))
	_, err = runKcat("never\n", "-X", "enable.sasl.oauthbearer.unsecure.jwt=true", "-X", "message.timeout.ms=3000",
		"-X", "sasl.oauthbearer.config=principal=kcat-dev scope=kafka")
	assert.Error(t, err, "a missing extension fails")

	out, err = runKcat("kcat-oidc\n", append(oidc, "-X", "sasl.oauthbearer.client.secret=app-s3cret")...)
	if strings.Contains(out, "not supported in this build") {
		t.Logf("this kcat has no OIDC, only its unsecured JWT was tried: %s", strings.TrimSpace(out))
		return
	}
	require.NoError(t, err, out)
	assert.Equal(t, []string{"kcat-unsecured", "kcat-oidc"}, values(e.consume(2)))
	assert.NotEmpty(t, e.conns("app"))
	_, err = runKcat("never\n", append(oidc, "-X", "sasl.oauthbearer.client.secret=wrong", "-X", "message.timeout.ms=3000")...)
	assert.Error(t, err, "a wrong secret fails")
}
