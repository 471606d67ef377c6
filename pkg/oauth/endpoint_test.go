package oauth_test

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/kafkatest/oidctest"
	"github.com/kproduce/kproduce/pkg/network"
	"github.com/kproduce/kproduce/pkg/oauth"
)

// firstFetch starts a source of cfg on a stepped clock and waits for its
// first fetch to end; the test's cleanup releases it.
func firstFetch(t *testing.T, cfg oauth.ClientCredentialsConfig) (*oauth.ClientCredentials, *waker, *stepper) {
	t.Helper()
	st := newStepper()
	cfg.Now, cfg.Sleep, cfg.Rand = st.Now, st.Sleep, func() float64 { return 0.5 }
	src, err := oauth.NewClientCredentials(cfg)
	require.NoError(t, err)
	w := newWaker()
	t.Cleanup(func() { src.Release(w) })
	require.ErrorIs(t, src.Prepare(w), network.ErrSASLPending)
	w.wait(t)
	return src, w, st
}

// An HTTPS endpoint is trusted through the configuration's CAs; one whose
// certificate does not verify fails for good at once, saying what to
// give.
func TestClientCredentialsOverHTTPS(t *testing.T) {
	iss, err := oidctest.NewIssuer(oidctest.Config{Clients: map[string]string{"app": "secret"}, TLS: true})
	require.NoError(t, err)
	defer iss.Close()
	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(iss.CertificatePEM()))
	for name, cfg := range map[string]*tls.Config{"trusted": {RootCAs: pool}, "untrusted": {RootCAs: x509.NewCertPool()}} {
		t.Run(name, func(t *testing.T) {
			src, w, _ := firstFetch(t, oauth.ClientCredentialsConfig{TokenURL: iss.TokenURL(), ClientID: "app", ClientSecret: "secret", TLS: cfg})
			err := src.Prepare(w)
			if name == "trusted" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.NotErrorIs(t, err, network.ErrSASLPending, "final: no retry")
			var ce *oauth.CertificateError
			require.ErrorAs(t, err, &ce)
			assert.EqualError(t, err, "token endpoint "+iss.TokenURL()+": tls: failed to verify certificate: x509: certificate signed by unknown authority"+
				" (trust the CA that signs its certificate: --oauth-ca, https.ca.location)")
		})
	}
}

// The read timeout (sasl.login.read.timeout.ms) bounds an endpoint that
// accepts the request and never answers: the attempt fails, saying so,
// and is retried.
func TestClientCredentialsReadTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { <-release }))
	defer srv.Close()
	defer close(release)
	src, w, st := firstFetch(t, oauth.ClientCredentialsConfig{TokenURL: srv.URL + "/token", ClientID: "app", ClientSecret: "s",
		ReadTimeout: 50 * time.Millisecond})
	assert.Equal(t, 100*time.Millisecond, st.nextSleep(t), "retried after the backoff")
	err := src.Prepare(w)
	require.ErrorIs(t, err, network.ErrSASLPending)
	assert.Contains(t, err.Error(), "1 attempts failed, the last: token endpoint "+srv.URL+"/token: ")
	assert.Contains(t, err.Error(), "timeout awaiting response headers")
}
