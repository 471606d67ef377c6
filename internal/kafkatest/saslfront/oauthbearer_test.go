package saslfront_test

import (
	"encoding/base64"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/sasl/oauth"

	"github.com/kproduce/kproduce/internal/kafkatest/oidctest"
	"github.com/kproduce/kproduce/internal/kafkatest/saslfront"
)

func newIssuer(t *testing.T) *oidctest.Issuer {
	t.Helper()
	iss, err := oidctest.NewIssuer(oidctest.Config{Clients: map[string]string{"app": "secret"}, Scopes: []string{"kafka", "other"}})
	require.NoError(t, err)
	t.Cleanup(iss.Close)
	return iss
}

// unsecuredJWT is a token with alg none, as librdkafka and Kafka's
// unsecured login build them.
func unsecuredJWT(payload string) string {
	enc := base64.RawURLEncoding.EncodeToString
	return enc([]byte(`{"alg":"none"}`)) + "." + enc([]byte(payload)) + "."
}

func TestOAuthBearerWithKgo(t *testing.T) {
	iss := newIssuer(t)
	mech, err := saslfront.OAuthBearer(saslfront.OAuthBearerConfig{
		JWKS: iss.JWKS(), Audience: "kafka", RequiredScopes: []string{"kafka"},
		RequiredExtensions: map[string]string{"logicalCluster": "lkc-1", "identityPoolId": ""},
	})
	require.NoError(t, err)
	front, cluster := startFront(t, saslfront.Config{Mechanisms: []saslfront.Mechanism{mech}}, 3)
	ext := map[string]string{"logicalCluster": "lkc-1", "identityPoolId": "pool-9"}
	good := iss.Token("app", "kafka", time.Hour)
	require.NoError(t, produceConsume(t, cluster, oauth.Auth{Token: good, Extensions: ext}.AsMechanism(), 5))
	for _, c := range front.Connections() {
		if c.Authentications > 0 {
			assert.Equal(t, "app", c.Principal)
		}
	}

	other, err := oidctest.NewIssuer(oidctest.Config{})
	require.NoError(t, err)
	defer other.Close()
	tests := []struct {
		name  string
		auth  oauth.Auth
		wants string
	}{
		{"expired", oauth.Auth{Token: iss.Token("app", "kafka", -time.Minute), Extensions: ext}, `{"status":"invalid_token"}`},
		{"signed by another key", oauth.Auth{Token: other.Token("app", "kafka", time.Hour), Extensions: ext}, `{"status":"invalid_token"}`},
		{"wrong audience", oauth.Auth{Token: iss.Sign(map[string]any{"sub": "app", "aud": "elsewhere", "scope": "kafka",
			"exp": time.Now().Add(time.Hour).Unix()}), Extensions: ext}, `{"status":"invalid_token"}`},
		{"scope missing", oauth.Auth{Token: iss.Token("app", "other", time.Hour), Extensions: ext}, `{"scope":"kafka","status":"insufficient_scope"}`},
		{"unsecured", oauth.Auth{Token: unsecuredJWT(`{"sub":"app","scope":"kafka","exp":9999999999}`), Extensions: ext}, `{"status":"invalid_token"}`},
		{"not a JWT", oauth.Auth{Token: "opaque", Extensions: ext}, `{"status":"invalid_token"}`},
		{"extension missing", oauth.Auth{Token: good, Extensions: map[string]string{"logicalCluster": "lkc-1"}},
			"Authentication failed: 1 extensions are invalid! They are: identityPoolId: missing"},
		{"extension wrong", oauth.Auth{Token: good, Extensions: map[string]string{"logicalCluster": "lkc-2", "identityPoolId": "p"}},
			"Authentication failed: 1 extensions are invalid! They are: logicalCluster: unknown value"},
		{"authorization id not the token's", oauth.Auth{Zid: "root", Token: good, Extensions: ext}, "different from the token's principal name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := authError(t, cluster, tt.auth.AsMechanism())
			require.Error(t, err)
			assert.ErrorIs(t, err, kerr.SaslAuthenticationFailed)
			assert.Contains(t, err.Error(), tt.wants)
		})
	}
}

// Kafka's unsecured validator accepts alg none tokens, and the session
// ends at the token's exp.
func TestOAuthBearerUnsecuredAndExpiry(t *testing.T) {
	mech, err := saslfront.OAuthBearer(saslfront.OAuthBearerConfig{AllowUnsecured: true, RequiredScopes: []string{"a"}})
	require.NoError(t, err)
	_, cluster := startFront(t, saslfront.Config{Mechanisms: []saslfront.Mechanism{mech}, SessionLifetime: time.Hour}, 1)
	exp := time.Now().Add(30 * time.Minute)
	token := unsecuredJWT(`{"sub":"admin","scope":"a b","iat":1,"exp":` + strconv.FormatInt(exp.Unix(), 10) + `}`)
	require.NoError(t, produceConsume(t, cluster, oauth.Auth{Token: token}.AsMechanism(), 3))

	r := dialRaw(t, cluster.ListenAddrs()[0])
	lifetime := r.authOAuth("n,,\x01auth=Bearer " + token + "\x01\x01")
	assert.InDelta(t, time.Until(exp).Milliseconds(), lifetime, 2000, "the session ends at exp, before the hour")
}
