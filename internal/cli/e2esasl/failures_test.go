package e2esasl

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/kafkatest/awstest"
	"github.com/kproduce/kproduce/internal/kafkatest/oidctest"
	"github.com/kproduce/kproduce/internal/kafkatest/saslfront"
)

// failureDeadline is how soon every failure below must end the run: well
// within the default bootstrap timeout (10s), the delivery timeout far
// away.
const failureDeadline = 9 * time.Second

// Each misconfiguration or refusal ends the run with exit 1 within
// seconds, one error naming the cause, every record reported failed, and
// no secret in the output.
func TestAuthenticationFailures(t *testing.T) {
	awstest.Isolate(t)
	mech := saslfront.AWSIAM(saslfront.AWSIAMConfig{Region: "eu-west-1", Credentials: map[string]saslfront.AWSCredential{
		"AKIDTEST": {SecretKey: "aws-s3cret"}}})
	e := newEnv(t, envConfig{Extensions: map[string]string{"logicalCluster": "lkc-1"}, Extra: []saslfront.Mechanism{mech}})
	other, err := oidctest.NewIssuer(oidctest.Config{})
	require.NoError(t, err)
	defer other.Close()
	good := []string{"--oauth-extension", "logicalCluster=lkc-1"}
	endpoint := func(url, secret string) []string {
		return append([]string{"--oauth-token-endpoint", url, "--oauth-client-id", "app", "--oauth-client-secret", secret, "--oauth-scope", "kafka"}, good...)
	}
	expired := e.issuer.Token("app", "kafka", -2*time.Minute)
	rejected := other.Token("app", "kafka", time.Hour)
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		want    []string
		secrets []string
	}{
		{name: "wrong client secret", args: endpoint(e.issuer.TokenURL(), "wrong-s3cret"),
			want:    []string{"token endpoint " + e.issuer.TokenURL() + ": HTTP 401 Unauthorized: invalid_client", "(check the client id and secret)"},
			secrets: []string{"wrong-s3cret"}},
		{name: "unreachable token endpoint", args: append(endpoint("http://127.0.0.1:1/token", "app-s3cret"), "--bootstrap-timeout", "2s"),
			want: []string{"no broker tried within 2s (--bootstrap-timeout)", "waiting for a token from http://127.0.0.1:1/token",
				"connect: connection refused"}, secrets: []string{"app-s3cret"}},
		{name: "token rejected by the broker", args: append([]string{"--sasl-token", rejected}, good...),
			want: []string{"SASL_AUTHENTICATION_FAILED", `{"status":"invalid_token"}`, "broker status status=invalid_token",
				"token claims sub=app aud=kafka scope=kafka exp="}, secrets: []string{rejected}},
		{name: "missing extension", args: endpoint(e.issuer.TokenURL(), "app-s3cret")[:8],
			want:    []string{"SASL_AUTHENTICATION_FAILED", "Authentication failed: 1 extensions are invalid! They are: logicalCluster: missing"},
			secrets: []string{"app-s3cret"}},
		{name: "scope missing from the token", args: append([]string{"--sasl-token", e.issuer.Token("app", "other", time.Hour)}, good...),
			want: []string{"broker status status=insufficient_scope scope=kafka", "token claims sub=app aud=kafka scope=other"}},
		{name: "expired static token", args: append([]string{"--sasl-token", expired}, good...),
			want: []string{"authentication failed: SASL OAUTHBEARER: the token of --sasl-token expired at", "ago); get a new token (its claims: sub=app"}},
		{name: "IAM session token the broker does not expect", args: []string{"--sasl-mechanism", "AWS_MSK_IAM", "--aws-region", "eu-west-1"},
			env:     map[string]string{"AWS_ACCESS_KEY_ID": "AKIDTEST", "AWS_SECRET_ACCESS_KEY": "aws-s3cret", "AWS_SESSION_TOKEN": "aws-session-s3cret"},
			want:    []string{"SASL AWS_MSK_IAM", "SASL_AUTHENTICATION_FAILED", "Access denied: wrong or missing session token"},
			secrets: []string{"aws-s3cret", "aws-session-s3cret"}},
		{name: "wrong IAM credentials", args: []string{"--sasl-mechanism", "AWS_MSK_IAM", "--aws-region", "eu-west-1"},
			env:  map[string]string{"AWS_ACCESS_KEY_ID": "AKIDTEST", "AWS_SECRET_ACCESS_KEY": "not-the-s3cret"},
			want: []string{"SASL AWS_MSK_IAM", "SASL_AUTHENTICATION_FAILED", "Access denied: the signature does not match"}, secrets: []string{"not-the-s3cret"}},
		{name: "IAM region unknown", args: []string{"--sasl-mechanism", "AWS_MSK_IAM"},
			env:  map[string]string{"AWS_ACCESS_KEY_ID": "AKIDTEST", "AWS_SECRET_ACCESS_KEY": "aws-s3cret"},
			want: []string{"cannot tell the AWS region: the broker host 127.0.0.1 names none; give --aws-region or set AWS_REGION"}, secrets: []string{"aws-s3cret"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			args := append([]string{"-b", e.brokers(), "-t", "t"}, tt.args...)
			res := run(t, strings.NewReader("a\nb\n"), args...)
			t.Logf("%s: exit %d after %v", tt.name, res.Code, res.Took.Round(time.Millisecond))
			require.Equal(t, 1, res.Code, "stderr:\n%s", res.Stderr)
			assert.Less(t, res.Took, failureDeadline, "fails fast")
			for _, w := range tt.want {
				assert.Contains(t, res.Stderr, w)
			}
			assert.Equal(t, 1, strings.Count(res.Stderr, tt.want[0]), "told once, not once per broker or record:\n%s", res.Stderr)
			if strings.Contains(res.Stderr, "delivered") {
				// The run stops at once: the records read so far are failed.
				assert.Regexp(t, regexp.MustCompile(`\n0 delivered, [12] failed\n$`), res.Stderr)
				assert.Regexp(t, regexp.MustCompile(`(?m)^error: -:1: t/`), res.Stderr, "each record read is reported")
			}
			// Neither the output of the run nor its trace log shows a secret.
			traced := run(t, strings.NewReader("a\n"), append(args, "--log-level", "trace")...)
			assert.Equal(t, 1, traced.Code, "stderr:\n%s", traced.Stderr)
			for _, s := range append(tt.secrets, expired) {
				assert.NotContains(t, res.Stderr+res.Stdout, s, "a secret is shown")
				assert.NotContains(t, traced.Stderr+traced.Stdout, s, "a secret is logged")
			}
		})
	}
}
