package mskiam

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/kproduce/kproduce/pkg/network"
)

// Name is the mechanism's name.
const Name = "AWS_MSK_IAM"

// Config configures the mechanism.
type Config struct {
	// Region signs for this region; "" takes the SDK's (AWS_REGION, the
	// profile's), else the one in the broker's host name
	// (b-1.x.kafka.REGION.amazonaws.com).
	Region string
	// Profile is the shared config profile ("" : AWS_PROFILE or default).
	Profile string
	// RoleARN, when set, is assumed with the chain's credentials;
	// RoleSessionName names the session (default "kproduce").
	RoleARN, RoleSessionName string
	// UserAgent is sent in the payload (default "kproduce").
	UserAgent string
	// Now is the clock (default time.Now); Sleep waits d or until ctx ends;
	// Load loads the AWS configuration (default: the SDK's default
	// chain, see load).
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
	Load  func(ctx context.Context) (aws.Config, error)
}

// Mechanism is AWS_MSK_IAM; it satisfies network.SASLMechanism and
// network.SASLPreparer. Safe for concurrent use.
type Mechanism struct {
	cfg Config

	mu       sync.Mutex // guards the fields below
	creds    aws.Credentials
	region   string // the SDK configuration's region
	lastErr  error
	failures int
	final    error
	users    map[network.Waker]struct{}
	cancel   context.CancelFunc
	done     chan struct{}
}

// New returns the mechanism; nothing is loaded until it is prepared.
func New(cfg Config) *Mechanism {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Sleep == nil {
		cfg.Sleep = sleep
	}
	if cfg.UserAgent == "" {
		cfg.UserAgent = "kproduce"
	}
	if cfg.RoleSessionName == "" {
		cfg.RoleSessionName = "kproduce"
	}
	if cfg.Load == nil {
		cfg.Load = func(ctx context.Context) (aws.Config, error) { return load(ctx, cfg) }
	}
	return &Mechanism{cfg: cfg, users: map[network.Waker]struct{}{}}
}

// Name returns "AWS_MSK_IAM".
func (*Mechanism) Name() string { return Name }

// Prepare registers w, starts resolving the credentials if not started,
// and reports whether they are there.
func (m *Mechanism) Prepare(w network.Waker) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.users[w] = struct{}{}
	if m.cancel == nil && m.final == nil && !m.validLocked() {
		ctx, cancel := context.WithCancel(context.Background())
		m.cancel, m.done = cancel, make(chan struct{})
		go m.run(ctx, m.done)
	}
	return m.stateLocked()
}

// Release unregisters w; the last one stops the background work.
func (m *Mechanism) Release(w network.Waker) {
	m.mu.Lock()
	delete(m.users, w)
	var done chan struct{}
	if len(m.users) == 0 && m.cancel != nil {
		m.cancel()
		m.cancel, done = nil, m.done
	}
	m.mu.Unlock()
	if done != nil {
		<-done
	}
}

// validLocked reports whether the credentials can sign now.
func (m *Mechanism) validLocked() bool {
	return m.creds.HasKeys() && (!m.creds.CanExpire || m.cfg.Now().Before(m.creds.Expires))
}

// stateLocked is nil with valid credentials, the final error, or a
// pending error saying what is awaited.
func (m *Mechanism) stateLocked() error {
	switch {
	case m.validLocked():
		return nil
	case m.final != nil:
		return m.final
	case m.lastErr != nil:
		return fmt.Errorf("%w: waiting for AWS credentials; %d attempts failed, the last: %w", network.ErrSASLPending, m.failures,
			clippedError{m.lastErr})
	}
	return fmt.Errorf("%w: waiting for AWS credentials", network.ErrSASLPending)
}

// NewSession signs a payload for node with the current credentials.
func (m *Mechanism) NewSession(node network.Node) (network.SASLSession, error) {
	m.mu.Lock()
	if err := m.stateLocked(); err != nil {
		m.mu.Unlock()
		return nil, err
	}
	creds, region := m.creds, m.cfg.Region
	if region == "" {
		region = m.region
	}
	m.mu.Unlock()
	if region == "" {
		var ok bool
		if region, ok = RegionFromHost(node.Host); !ok {
			return nil, fmt.Errorf("sasl aws_msk_iam: cannot tell the AWS region: the broker host %s names none; give --aws-region or set AWS_REGION", node.Host)
		}
	}
	payload, err := m.sign(creds, node.Host, region)
	if err != nil {
		return nil, err
	}
	return &session{payload: payload}, nil
}

// sign presigns GET https://host/?Action=kafka-cluster:Connect for the
// kafka-cluster service, valid 15 minutes, and returns the payload: the
// query parameters with lower-case names, the host, the version and the
// user agent.
func (m *Mechanism) sign(creds aws.Credentials, host, region string) ([]byte, error) {
	u := url.URL{Scheme: "https", Host: host, Path: "/", RawQuery: "Action=kafka-cluster%3AConnect&X-Amz-Expires=900"}
	req, err := http.NewRequest(http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("sasl aws_msk_iam: %w", err)
	}
	const emptyHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	signed, _, err := v4.NewSigner().PresignHTTP(context.Background(), creds, req, emptyHash, "kafka-cluster", region, m.cfg.Now().UTC())
	if err != nil {
		return nil, fmt.Errorf("sasl aws_msk_iam: signing: %w", err)
	}
	su, err := url.Parse(signed)
	if err != nil {
		return nil, fmt.Errorf("sasl aws_msk_iam: signing: %w", err)
	}
	p := map[string]string{"version": "2020_10_22", "host": host, "user-agent": m.cfg.UserAgent}
	for k, v := range su.Query() {
		p[strings.ToLower(k)] = v[0]
	}
	return json.Marshal(p)
}

// session sends the payload and checks the broker's answer.
type session struct {
	payload []byte
	sent    bool
}

// Step sends the payload, then accepts the broker's JSON answer.
func (s *session) Step(challenge []byte) ([]byte, bool, error) {
	if !s.sent {
		s.sent = true
		return s.payload, false, nil
	}
	var ans map[string]any
	if err := json.Unmarshal(challenge, &ans); err != nil || ans["version"] == nil {
		return nil, false, errors.New("sasl aws_msk_iam: the broker's answer is not the expected JSON")
	}
	return nil, true, nil
}
