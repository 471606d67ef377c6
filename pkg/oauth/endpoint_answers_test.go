package oauth_test

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/oauth"
)

// answering is an endpoint that answers with h; the test's cleanup
// stops it.
func answering(t *testing.T, h http.HandlerFunc) oauth.ClientCredentialsConfig {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return oauth.ClientCredentialsConfig{TokenURL: srv.URL, ClientID: "a", ClientSecret: "b"}
}

// fetchOnce has a client credentials source fetch one token from an
// endpoint that answers body, and returns the token's lifetime and the
// wait before the next request.
func fetchOnce(t *testing.T, body string) (life, next time.Duration) {
	t.Helper()
	src, w, st := firstFetch(t, answering(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
	}))
	require.NoError(t, src.Prepare(w), body)
	tok, err := src.Token()
	require.NoError(t, err, body)
	return tok.Expiry.Sub(st.Now()), st.nextSleep(t)
}

// An expires_in beyond what a duration holds is a token for a long time
// (it wrapped around into one that had expired 300 years ago, refused
// and asked for again and again).
func TestExpiresInHuge(t *testing.T) {
	const century = 100 * 365 * 24 * time.Hour
	for _, v := range []string{"1e20", `"Infinity"`, "9223372037"} {
		life, next := fetchOnce(t, `{"access_token":"opaque","expires_in":`+v+`}`)
		assert.Equal(t, century, life, v)
		assert.Equal(t, time.Duration(float64(century)*0.825), next, v)
	}
}

// A token that lives a few milliseconds is not refreshed sooner than a
// second after it came: the endpoint is not asked without pause.
func TestExpiresInTiny(t *testing.T) {
	for _, v := range []string{"0.0000001", "0.5"} {
		_, next := fetchOnce(t, `{"access_token":"opaque","expires_in":`+v+`}`)
		assert.Equal(t, time.Second, next, v)
	}
	_, next := fetchOnce(t, `{"access_token":"opaque","expires_in":10}`)
	assert.Equal(t, 8250*time.Millisecond, next, "80% of a longer life, and half the jitter")
}

// A JWT whose exp is past year 9999 expires then, not in the past.
func TestJWTExpBeyondRange(t *testing.T) {
	b64 := base64.RawURLEncoding.EncodeToString
	for _, exp := range []string{"1e300", "9.3e18"} {
		c, ok := oauth.ParseClaims(b64([]byte(`{"alg":"none"}`)) + "." + b64([]byte(`{"sub":"x","exp":`+exp+`}`)) + ".")
		require.True(t, ok)
		assert.Equal(t, 9999, c.Expiry.UTC().Year(), exp)
	}
}

// A refusal's error and description are shown without their control
// characters and cut at a character's boundary.
func TestRefusalTextShown(t *testing.T) {
	desc := "\x1b[31mno\x1b[0m " + strings.Repeat("é", 200)
	src, w, _ := firstFetch(t, answering(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_ = json.NewEncoder(w).Encode(map[string]string{"error": "invalid_request\n", "error_description": desc})
	}))
	err := src.Prepare(w)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "HTTP 400 Bad Request: invalid_request :  [31mno [0m éé")
	assert.NotContains(t, err.Error(), "\x1b")
	assert.True(t, utf8.ValidString(err.Error()), err.Error())
	assert.True(t, strings.HasSuffix(err.Error(), "é..."), err.Error())
}
