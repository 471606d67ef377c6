package oidctest_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/kafkatest/oidctest"
	"github.com/kproduce/kproduce/internal/kafkatest/saslfront"
)

func post(t *testing.T, iss *oidctest.Issuer, form url.Values, user, pass string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, iss.TokenURL(), strings.NewReader(form.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if user != "" {
		req.SetBasicAuth(url.QueryEscape(user), url.QueryEscape(pass))
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var body map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
	return resp.StatusCode, body
}

func TestTokenEndpoint(t *testing.T) {
	iss, err := oidctest.NewIssuer(oidctest.Config{Clients: map[string]string{"app": "p&ss word"}, Scopes: []string{"kafka"}, Lifetime: 3 * time.Second})
	require.NoError(t, err)
	defer iss.Close()
	grant := url.Values{"grant_type": {"client_credentials"}, "scope": {"kafka"}}

	status, body := post(t, iss, grant, "app", "p&ss word")
	require.Equal(t, http.StatusOK, status, "%v", body)
	assert.Equal(t, float64(3), body["expires_in"])
	assert.Equal(t, "kafka", body["scope"])

	// The token validates at a broker that trusts the issuer's keys.
	mech, err := saslfront.OAuthBearer(saslfront.OAuthBearerConfig{JWKS: iss.JWKS(), Audience: "kafka", RequiredScopes: []string{"kafka"}})
	require.NoError(t, err)
	ex := mech.Start(saslfront.ConnInfo{Now: time.Now()})
	_, done, err := ex.Step([]byte("n,,\x01auth=Bearer " + body["access_token"].(string) + "\x01\x01"))
	require.NoError(t, err)
	assert.True(t, done)
	assert.Equal(t, "app", ex.(saslfront.Principal).Principal())

	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {"app"}, "client_secret": {"p&ss word"}}
	status, _ = post(t, iss, form, "", "")
	assert.Equal(t, http.StatusOK, status, "client_secret_post")

	status, body = post(t, iss, grant, "app", "wrong")
	assert.Equal(t, http.StatusUnauthorized, status)
	assert.Equal(t, "invalid_client", body["error"])

	status, body = post(t, iss, url.Values{"grant_type": {"client_credentials"}, "scope": {"admin"}}, "app", "p&ss word")
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Equal(t, "invalid_scope", body["error"])

	iss.FailNext(1, http.StatusServiceUnavailable, "temporarily_unavailable", "down for a moment")
	status, body = post(t, iss, grant, "app", "p&ss word")
	assert.Equal(t, http.StatusServiceUnavailable, status)
	assert.Equal(t, "down for a moment", body["error_description"])
	requests, issued := iss.Requests()
	assert.Equal(t, 5, requests)
	assert.Equal(t, 2, issued)
}
