package oauth_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/kafkatest/oidctest"
	"github.com/kproduce/kproduce/pkg/network"
	"github.com/kproduce/kproduce/pkg/oauth"
)

// stepper is the clock and the sleeps of a source: each sleep is handed
// to the test, which moves the clock and lets it go on.
type stepper struct {
	mu     sync.Mutex
	now    time.Time
	sleeps chan time.Duration
	resume chan struct{}
}

func newStepper() *stepper {
	return &stepper{now: time.Unix(time.Now().Unix(), 0), sleeps: make(chan time.Duration), resume: make(chan struct{})}
}

func (s *stepper) Now() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.now
}

func (s *stepper) advance(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.now = s.now.Add(d)
}

func (s *stepper) Sleep(ctx context.Context, d time.Duration) error {
	select {
	case s.sleeps <- d:
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-s.resume:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// nextSleep waits for the source to ask for a sleep.
func (s *stepper) nextSleep(t *testing.T) time.Duration {
	t.Helper()
	select {
	case d := <-s.sleeps:
		return d
	case <-time.After(10 * time.Second):
		t.Fatal("the source did not sleep")
		return 0
	}
}

// waker counts wakeups.
type waker struct{ ch chan struct{} }

func newWaker() *waker { return &waker{ch: make(chan struct{}, 100)} }

func (w *waker) Wakeup() { w.ch <- struct{}{} }

func (w *waker) wait(t *testing.T) {
	t.Helper()
	select {
	case <-w.ch:
	case <-time.After(10 * time.Second):
		t.Fatal("not woken")
	}
}

func newSource(t *testing.T, iss *oidctest.Issuer, secret string, st *stepper) *oauth.ClientCredentials {
	t.Helper()
	s, err := oauth.NewClientCredentials(oauth.ClientCredentialsConfig{
		TokenURL: iss.TokenURL(), ClientID: "app", ClientSecret: secret, Scope: "kafka",
		Now: st.Now, Sleep: st.Sleep, Rand: func() float64 { return 0.5 },
	})
	require.NoError(t, err)
	return s
}

func TestClientCredentialsLifecycle(t *testing.T) {
	st := newStepper()
	iss, err := oidctest.NewIssuer(oidctest.Config{Clients: map[string]string{"app": "secret"}, Scopes: []string{"kafka"},
		Lifetime: 100 * time.Second, Now: st.Now})
	require.NoError(t, err)
	defer iss.Close()
	src := newSource(t, iss, "secret", st)
	w := newWaker()

	err = src.Prepare(w)
	require.ErrorIs(t, err, network.ErrSASLPending, "fetched in the background")
	assert.Contains(t, err.Error(), "waiting for a token from "+iss.TokenURL())
	w.wait(t)
	require.NoError(t, src.Prepare(w))
	tok, err := src.Token()
	require.NoError(t, err)
	assert.Contains(t, tok.Claims, "sub=app aud=kafka scope=kafka exp=")
	assert.Equal(t, st.Now().Add(100*time.Second), tok.Expiry)
	assert.Equal(t, 82500*time.Millisecond, st.nextSleep(t), "refresh at 80% + half of the 5% jitter")

	// A refresh that fails is retried with backoff; the old token serves.
	iss.FailNext(2, http.StatusServiceUnavailable, "temporarily_unavailable", "maintenance")
	st.advance(82500 * time.Millisecond)
	st.resume <- struct{}{}
	w.wait(t)
	assert.Equal(t, 100*time.Millisecond, st.nextSleep(t))
	_, err = src.Token()
	assert.NoError(t, err, "the old token is still valid")
	st.resume <- struct{}{}
	w.wait(t)
	assert.Equal(t, 200*time.Millisecond, st.nextSleep(t), "the backoff doubles")

	// Once it expired, nothing is handed out until a new one comes.
	st.advance(20 * time.Second)
	_, err = src.Token()
	require.ErrorIs(t, err, network.ErrSASLPending)
	assert.Contains(t, err.Error(), "the token expired; waiting for a new one")
	assert.Contains(t, err.Error(), "2 attempts failed, the last: token endpoint "+iss.TokenURL()+": HTTP 503 Service Unavailable: temporarily_unavailable: maintenance")
	st.resume <- struct{}{}
	w.wait(t)
	_, err = src.Token()
	require.NoError(t, err)
	requests, issued := iss.Requests()
	assert.Equal(t, 4, requests)
	assert.Equal(t, 2, issued)
	st.nextSleep(t)

	// The last Release stops the background work.
	src.Release(w)
	src.Release(w)
}

// A refusal no retry can fix is final at once, with the endpoint's words
// and never the secret.
func TestClientCredentialsWrongSecret(t *testing.T) {
	iss, err := oidctest.NewIssuer(oidctest.Config{Clients: map[string]string{"app": "secret"}})
	require.NoError(t, err)
	defer iss.Close()
	st := newStepper()
	src := newSource(t, iss, "wrong-secret-123", st)
	w := newWaker()
	require.ErrorIs(t, src.Prepare(w), network.ErrSASLPending)
	w.wait(t)
	err = src.Prepare(w)
	require.Error(t, err)
	assert.NotErrorIs(t, err, network.ErrSASLPending)
	var ee *oauth.EndpointError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, http.StatusUnauthorized, ee.Status)
	assert.Equal(t, "token endpoint "+iss.TokenURL()+": HTTP 401 Unauthorized: invalid_client: Invalid client or Invalid client credentials"+
		" (check the client id and secret)", err.Error())
	assert.NotContains(t, err.Error(), "wrong-secret-123")
	src.Release(w)
}

// An unreachable endpoint is retried, and the pending error says why.
func TestClientCredentialsUnreachable(t *testing.T) {
	st := newStepper()
	src, err := oauth.NewClientCredentials(oauth.ClientCredentialsConfig{
		TokenURL: "http://127.0.0.1:1/token", ClientID: "app", ClientSecret: "s",
		Now: st.Now, Sleep: st.Sleep, Rand: func() float64 { return 0.5 },
	})
	require.NoError(t, err)
	w := newWaker()
	require.ErrorIs(t, src.Prepare(w), network.ErrSASLPending)
	w.wait(t)
	assert.Equal(t, 100*time.Millisecond, st.nextSleep(t))
	err = src.Prepare(w)
	require.ErrorIs(t, err, network.ErrSASLPending)
	assert.Contains(t, err.Error(), "waiting for a token from http://127.0.0.1:1/token; 1 attempts failed, the last: token endpoint http://127.0.0.1:1/token: dial tcp 127.0.0.1:1: connect: connection refused")
	src.Release(w)
}

func TestClientCredentialsConfigErrors(t *testing.T) {
	for _, tt := range []struct {
		cfg  oauth.ClientCredentialsConfig
		want string
	}{
		{oauth.ClientCredentialsConfig{TokenURL: "ftp://x/t", ClientID: "a", ClientSecret: "b"}, `token endpoint URL "ftp://x/t": want https://host/path`},
		{oauth.ClientCredentialsConfig{TokenURL: "https://x/t", ClientSecret: "b"}, "the client id is empty"},
		{oauth.ClientCredentialsConfig{TokenURL: "https://x/t", ClientID: "a"}, "the client secret is empty"},
		{oauth.ClientCredentialsConfig{TokenURL: "https://u:pw@x/t%", ClientID: "a", ClientSecret: "b"}, "token endpoint URL"},
	} {
		_, err := oauth.NewClientCredentials(tt.cfg)
		require.Error(t, err)
		assert.Contains(t, err.Error(), tt.want)
		assert.NotContains(t, err.Error(), "pw")
	}
}
