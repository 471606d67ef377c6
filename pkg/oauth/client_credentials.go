package oauth

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/kproduce/kproduce/pkg/network"
)

// ClientCredentialsConfig configures the OAuth 2 client credentials grant.
type ClientCredentialsConfig struct {
	// TokenURL is the token endpoint (https://idp/oauth2/token).
	TokenURL string
	// ClientID and ClientSecret authenticate the client (a secret).
	ClientID, ClientSecret string
	// Scope is the space-separated scope asked for; "" asks for none.
	Scope string
	// TLS configures HTTPS to the endpoint (nil: the system's CAs).
	TLS *tls.Config
	// ConnectTimeout and ReadTimeout bound each request
	// (sasl.login.connect.timeout.ms and sasl.login.read.timeout.ms;
	// default 10s each).
	ConnectTimeout, ReadTimeout time.Duration
	// RetryBackoff and RetryBackoffMax space the retries of a failed
	// request, doubling from the first to the second
	// (sasl.login.retry.backoff.ms and .max.ms; default 100ms and 10s).
	RetryBackoff, RetryBackoffMax time.Duration
	// Now is the clock (default time.Now); Sleep waits d or until ctx
	// ends (default a timer); Rand returns a float in [0, 1) for the
	// jitter (default math/rand/v2).
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
	Rand  func() float64
}

// ClientCredentials fetches tokens from a token endpoint in the
// background and hands out the current one. Safe for concurrent use.
type ClientCredentials struct {
	cfg      ClientCredentialsConfig
	client   *http.Client
	shownURL string // the URL without user info

	mu       sync.Mutex // guards the fields below
	token    network.OAuthBearerToken
	lastErr  error // the last failed fetch since the last success
	failures int   // failed fetches since the last success
	final    error // a failure no retry can fix, with no valid token left
	users    map[network.Waker]struct{}
	cancel   context.CancelFunc // stops the running fetch loop; nil when none
	done     chan struct{}      // closed when the running loop ended
}

// NewClientCredentials checks cfg and returns a source that fetches its
// first token when first prepared.
func NewClientCredentials(cfg ClientCredentialsConfig) (*ClientCredentials, error) {
	if err := checkTokenURL(cfg.TokenURL); err != nil {
		return nil, err
	}
	if cfg.ClientID == "" {
		return nil, errors.New("client credentials: the client id is empty")
	}
	if cfg.ClientSecret == "" {
		return nil, errors.New("client credentials: the client secret is empty")
	}
	setDefault(&cfg.ConnectTimeout, 10*time.Second)
	setDefault(&cfg.ReadTimeout, 10*time.Second)
	setDefault(&cfg.RetryBackoff, 100*time.Millisecond)
	setDefault(&cfg.RetryBackoffMax, 10*time.Second)
	cfg.RetryBackoffMax = max(cfg.RetryBackoffMax, cfg.RetryBackoff)
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Sleep == nil {
		cfg.Sleep = sleep
	}
	if cfg.Rand == nil {
		cfg.Rand = rand.Float64
	}
	u, _ := url.Parse(cfg.TokenURL)
	return &ClientCredentials{
		cfg: cfg, client: newHTTPClient(cfg.TLS, cfg.ConnectTimeout, cfg.ReadTimeout),
		shownURL: u.Redacted(), users: map[network.Waker]struct{}{},
	}, nil
}

// Prepare registers w and starts fetching, if not started; it reports
// whether a valid token is there.
func (s *ClientCredentials) Prepare(w network.Waker) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.users[w] = struct{}{}
	if s.cancel == nil && s.final == nil {
		ctx, cancel := context.WithCancel(context.Background())
		s.cancel, s.done = cancel, make(chan struct{})
		go s.run(ctx, s.done)
	}
	return s.stateLocked()
}

// Release unregisters w; the last one stops the fetching.
func (s *ClientCredentials) Release(w network.Waker) {
	s.mu.Lock()
	delete(s.users, w)
	var done chan struct{}
	if len(s.users) == 0 && s.cancel != nil {
		s.cancel()
		s.cancel, done = nil, s.done
	}
	s.mu.Unlock()
	if done != nil {
		<-done
	}
}

// Token returns the current token, or why there is none.
func (s *ClientCredentials) Token() (network.OAuthBearerToken, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.stateLocked(); err != nil {
		return network.OAuthBearerToken{}, err
	}
	return s.token, nil
}

// stateLocked is nil with a valid token, the final error, or a pending
// error saying what is awaited.
func (s *ClientCredentials) stateLocked() error {
	if s.token.Value != "" && s.cfg.Now().Before(s.token.Expiry) {
		return nil
	}
	if s.final != nil {
		return s.final
	}
	what := "waiting for a token from " + s.shownURL
	if s.token.Value != "" {
		what = "the token expired; waiting for a new one from " + s.shownURL
	}
	if s.lastErr != nil {
		return fmt.Errorf("%w: %s; %d attempts failed, the last: %w", network.ErrSASLPending, what, s.failures, s.lastErr)
	}
	return fmt.Errorf("%w: %s", network.ErrSASLPending, what)
}

// run fetches the token, then refreshes it, until ctx ends or a failure
// is final.
func (s *ClientCredentials) run(ctx context.Context, done chan struct{}) {
	defer close(done)
	for {
		tok, err := s.fetch(ctx)
		if ctx.Err() != nil {
			return
		}
		wait, stop := s.record(tok, err)
		s.wake()
		if stop || s.cfg.Sleep(ctx, wait) != nil {
			return
		}
	}
}

// record keeps the outcome of a fetch and says how long to wait before
// the next one, or to stop (a final failure).
func (s *ClientCredentials) record(tok network.OAuthBearerToken, err error) (time.Duration, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.cfg.Now()
	if err == nil && !now.Before(tok.Expiry) {
		err = fmt.Errorf("token endpoint %s: the token expires at once (%s)", s.shownURL, tok.Expiry.UTC().Format(time.RFC3339))
	}
	if err == nil {
		s.token, s.lastErr, s.failures = tok, nil, 0
		return refreshDelay(tok.Expiry.Sub(now), s.cfg.Rand()), false
	}
	s.lastErr = err
	s.failures++
	var p interface{ Permanent() bool } // *EndpointError, *CertificateError
	if errors.As(err, &p) && p.Permanent() && !(s.token.Value != "" && now.Before(s.token.Expiry)) {
		s.final = err
		s.cancel = nil
		return 0, true
	}
	return retryDelay(s.failures, s.cfg.RetryBackoff, s.cfg.RetryBackoffMax, s.cfg.Rand()), false
}

// wake tells every registered Client that the token may have changed.
func (s *ClientCredentials) wake() {
	s.mu.Lock()
	users := make([]network.Waker, 0, len(s.users))
	for w := range s.users {
		users = append(users, w)
	}
	s.mu.Unlock()
	for _, w := range users {
		w.Wakeup()
	}
}

// minRefreshDelay is the shortest wait between two token requests that
// succeed: an endpoint that hands out tokens living a few milliseconds is
// not asked again and again without pause.
const minRefreshDelay = time.Second

// refreshDelay is when to refresh a token that lives for life more: at
// 80% to 85% of it (r in [0, 1) picks where), as the Java client's
// refresh window factor and jitter do, and at least minRefreshDelay.
func refreshDelay(life time.Duration, r float64) time.Duration {
	return max(time.Duration(float64(life)*(0.80+0.05*r)), minRefreshDelay)
}

// retryDelay is the wait before retry n (from 1): base doubled n-1
// times, at most maxDelay, within -20%..+20%.
func retryDelay(n int, base, maxDelay time.Duration, r float64) time.Duration {
	d := base
	for i := 1; i < n && d < maxDelay; i++ {
		d *= 2
	}
	d = min(d, maxDelay)
	return time.Duration(float64(d) * (0.8 + 0.4*r))
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func setDefault(d *time.Duration, def time.Duration) {
	if *d <= 0 {
		*d = def
	}
}
