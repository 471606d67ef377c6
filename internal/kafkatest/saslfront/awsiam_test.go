package saslfront_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/sasl/aws"

	"github.com/kproduce/kproduce/internal/kafkatest/saslfront"
)

// franz-go's AWS_MSK_IAM plugin, an implementation of aws-msk-iam-auth's
// signed payload independent of the front's verifier, authenticates.
func TestAWSIAMWithKgo(t *testing.T) {
	t.Setenv("AWS_REGION", "eu-west-3") // franz-go's region when the host names none
	mech := saslfront.AWSIAM(saslfront.AWSIAMConfig{Region: "eu-west-3", Credentials: map[string]saslfront.AWSCredential{
		"AKIDTEST": {SecretKey: "test/secret+key"},
		"ASIATEMP": {SecretKey: "temp-secret", SessionToken: "session/token=="},
	}})
	front, cluster := startFront(t, saslfront.Config{Mechanisms: []saslfront.Mechanism{mech}}, 3)
	require.NoError(t, produceConsume(t, cluster, aws.Auth{AccessKey: "AKIDTEST", SecretKey: "test/secret+key"}.AsManagedStreamingIAMMechanism(), 5))
	require.NoError(t, produceConsume(t, cluster, aws.Auth{AccessKey: "ASIATEMP", SecretKey: "temp-secret",
		SessionToken: "session/token=="}.AsManagedStreamingIAMMechanism(), 2))
	principals := map[string]bool{}
	for _, c := range front.Connections() {
		principals[c.Principal] = true
	}
	assert.True(t, principals["AKIDTEST"] && principals["ASIATEMP"], "%v", principals)

	tests := []struct {
		name  string
		auth  aws.Auth
		wants string
	}{
		{"wrong secret", aws.Auth{AccessKey: "AKIDTEST", SecretKey: "wrong"}, "the signature does not match"},
		{"unknown key", aws.Auth{AccessKey: "AKIDNOPE", SecretKey: "x"}, "unknown access key AKIDNOPE"},
		{"session token missing", aws.Auth{AccessKey: "ASIATEMP", SecretKey: "temp-secret"}, "session token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := authError(t, cluster, tt.auth.AsManagedStreamingIAMMechanism())
			require.Error(t, err)
			assert.ErrorIs(t, err, kerr.SaslAuthenticationFailed)
			assert.Contains(t, err.Error(), tt.wants)
		})
	}
	t.Run("wrong region", func(t *testing.T) {
		t.Setenv("AWS_REGION", "us-east-1")
		err := authError(t, cluster, aws.Auth{AccessKey: "AKIDTEST", SecretKey: "test/secret+key"}.AsManagedStreamingIAMMechanism())
		require.Error(t, err)
		assert.Contains(t, err.Error(), "signed for region us-east-1, this cluster is in eu-west-3")
	})
}
