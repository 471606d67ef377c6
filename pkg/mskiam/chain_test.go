package mskiam_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/kafkatest/awstest"
	"github.com/kproduce/kproduce/internal/kafkatest/saslfront"
	"github.com/kproduce/kproduce/pkg/mskiam"
)

// temporary are the credentials each fake source of the default chain
// hands out, and the front that knows them.
var temporary = saslfront.AWSIAMConfig{Region: "eu-west-1", Credentials: map[string]saslfront.AWSCredential{
	"ASIACONTAINER": {SecretKey: "container-secret", SessionToken: "container-token", Principal: "task-role"},
	"ASIAINSTANCE":  {SecretKey: "instance-secret", SessionToken: "instance-token", Principal: "instance-role"},
	"ASIAWEBID":     {SecretKey: "webid-secret", SessionToken: "webid-token", Principal: "service-account-role"},
}}

// credentialsJSON is the answer of the container and instance metadata
// credential endpoints.
func credentialsJSON(id, secret, token string) []byte {
	b, _ := json.Marshal(map[string]string{"Code": "Success", "Type": "AWS-HMAC", "AccessKeyId": id, "SecretAccessKey": secret,
		"Token": token, "Expiration": time.Now().Add(time.Hour).UTC().Format(time.RFC3339), "LastUpdated": time.Now().UTC().Format(time.RFC3339)})
	return b
}

// signsAs checks that the mechanism configured by cfg signs with the
// credentials of principal.
func signsAs(t *testing.T, cfg mskiam.Config, principal string) {
	t.Helper()
	m := mskiam.New(cfg)
	prepared(t, m)
	got, err := verify(t, m, "127.0.0.1", temporary)
	require.NoError(t, err)
	assert.Equal(t, principal, got)
}

// The container credentials endpoint (ECS tasks, EKS Pod Identity):
// AWS_CONTAINER_CREDENTIALS_FULL_URI and its authorization token.
func TestContainerCredentials(t *testing.T) {
	awstest.Isolate(t)
	var asked atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "pod-identity-token" {
			http.Error(w, "no authorization", http.StatusUnauthorized)
			return
		}
		asked.Add(1)
		_, _ = w.Write(credentialsJSON("ASIACONTAINER", "container-secret", "container-token"))
	}))
	defer srv.Close()
	t.Setenv("AWS_CONTAINER_CREDENTIALS_FULL_URI", srv.URL+"/v1/credentials")
	t.Setenv("AWS_CONTAINER_AUTHORIZATION_TOKEN", "pod-identity-token")
	signsAs(t, mskiam.Config{Region: "eu-west-1"}, "task-role")
	assert.Positive(t, asked.Load())
}

// The instance metadata service (EC2), IMDSv2: a session token first,
// then the role's credentials.
func TestInstanceMetadataCredentials(t *testing.T) {
	awstest.Isolate(t)
	mux := http.NewServeMux()
	mux.HandleFunc("PUT /latest/api/token", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Aws-Ec2-Metadata-Token-Ttl-Seconds", r.Header.Get("X-Aws-Ec2-Metadata-Token-Ttl-Seconds"))
		_, _ = w.Write([]byte("imds-session"))
	})
	authorized := func(h http.HandlerFunc) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("X-Aws-Ec2-Metadata-Token") != "imds-session" {
				http.Error(w, "IMDSv2 token missing", http.StatusUnauthorized)
				return
			}
			h(w, r)
		}
	}
	mux.HandleFunc("GET /latest/meta-data/iam/security-credentials/", authorized(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("kafka-instance-role"))
	}))
	mux.HandleFunc("GET /latest/meta-data/iam/security-credentials/kafka-instance-role", authorized(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write(credentialsJSON("ASIAINSTANCE", "instance-secret", "instance-token"))
	}))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	t.Setenv("AWS_EC2_METADATA_DISABLED", "false")
	t.Setenv("AWS_EC2_METADATA_SERVICE_ENDPOINT", srv.URL)
	signsAs(t, mskiam.Config{Region: "eu-west-1"}, "instance-role")
}

// Web identity (EKS IAM roles for service accounts): the token file is
// exchanged with STS for the role's credentials.
func TestWebIdentityCredentials(t *testing.T) {
	awstest.Isolate(t)
	sts := awstest.NewSTS(awstest.Credentials{AccessKeyID: "ASIAWEBID", SecretAccessKey: "webid-secret", SessionToken: "webid-token", Lifetime: time.Hour})
	defer sts.Close()
	tokenFile := filepath.Join(t.TempDir(), "token")
	require.NoError(t, os.WriteFile(tokenFile, []byte("eks-service-account-jwt"), 0o600))
	t.Setenv("AWS_ENDPOINT_URL_STS", sts.URL())
	t.Setenv("AWS_WEB_IDENTITY_TOKEN_FILE", tokenFile)
	t.Setenv("AWS_ROLE_ARN", "arn:aws:iam::123456789012:role/kafka-sa")
	t.Setenv("AWS_REGION", "eu-west-1")
	signsAs(t, mskiam.Config{}, "service-account-role")
	assert.Equal(t, []string{"eks-service-account-jwt"}, sts.WebIdentityTokens())
	assert.Equal(t, []string{"arn:aws:iam::123456789012:role/kafka-sa"}, sts.Roles())
}
