package mskiam

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/smithy-go/middleware"

	"github.com/kproduce/kproduce/pkg/network"
)

// load loads the SDK's default configuration with the profile and region
// given, and wraps its credentials in a role assumption when asked.
func load(ctx context.Context, cfg Config) (aws.Config, error) {
	opts := []func(*config.LoadOptions) error{config.WithAPIOptions([]func(*middleware.Stack) error{limitAnswers})}
	if cfg.Profile != "" {
		opts = append(opts, config.WithSharedConfigProfile(cfg.Profile))
	}
	if cfg.Region != "" {
		opts = append(opts, config.WithRegion(cfg.Region))
	}
	ac, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return aws.Config{}, err
	}
	if cfg.RoleARN != "" {
		stsCfg := ac.Copy()
		if stsCfg.Region == "" {
			stsCfg.Region = "us-east-1" // STS's global endpoint
		}
		provider := stscreds.NewAssumeRoleProvider(sts.NewFromConfig(stsCfg), cfg.RoleARN, func(o *stscreds.AssumeRoleOptions) {
			o.RoleSessionName = cfg.RoleSessionName
		})
		ac.Credentials = aws.NewCredentialsCache(provider)
	}
	return ac, nil
}

// Backoffs of failed credential resolutions.
const (
	retryBackoff    = 200 * time.Millisecond
	retryBackoffMax = 10 * time.Second
	attemptTimeout  = 30 * time.Second
)

// run loads the configuration, then resolves the credentials until they
// are there, and again at 80% of their life when they expire.
func (m *Mechanism) run(ctx context.Context, done chan struct{}) {
	defer close(done)
	ac, err := m.cfg.Load(ctx)
	if err != nil {
		if ctx.Err() == nil {
			m.mu.Lock()
			m.final, m.cancel = fmt.Errorf("AWS configuration: %w", err), nil
			m.mu.Unlock()
			m.wake()
		}
		return
	}
	m.mu.Lock()
	m.region = ac.Region
	m.mu.Unlock()
	for {
		if cache, ok := ac.Credentials.(*aws.CredentialsCache); ok {
			cache.Invalidate() // a refresh must not get the cached ones back
		}
		actx, cancel := context.WithTimeout(ctx, attemptTimeout)
		creds, err := retrieve(actx, ac.Credentials)
		cancel()
		if ctx.Err() != nil {
			return
		}
		wait, stop := m.record(creds, err)
		m.wake()
		if stop || m.cfg.Sleep(ctx, wait) != nil {
			return
		}
	}
}

// retrieve asks the provider for credentials.
func retrieve(ctx context.Context, p aws.CredentialsProvider) (aws.Credentials, error) {
	if p == nil {
		return aws.Credentials{}, errors.New("no credential provider")
	}
	c, err := p.Retrieve(ctx)
	if err == nil && !c.HasKeys() {
		err = errors.New("the credentials found have no access key")
	}
	return c, err
}

// record keeps the outcome of a resolution and says how long to wait
// before the next, or to stop: credentials that never expire need no
// refresh.
func (m *Mechanism) record(creds aws.Credentials, err error) (time.Duration, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err != nil {
		m.lastErr = err
		m.failures++
		d := retryBackoff
		for i := 1; i < m.failures && d < retryBackoffMax; i++ {
			d *= 2
		}
		return min(d, retryBackoffMax), false
	}
	m.creds, m.lastErr, m.failures = creds, nil, 0
	if !creds.CanExpire {
		m.cancel = nil
		return 0, true
	}
	return max(creds.Expires.Sub(m.cfg.Now())/10*8, time.Second), false // Sub saturates: *8 would wrap
}

// wake tells every registered Client that the credentials may have
// changed.
func (m *Mechanism) wake() {
	m.mu.Lock()
	users := make([]network.Waker, 0, len(m.users))
	for w := range m.users {
		users = append(users, w)
	}
	m.mu.Unlock()
	for _, w := range users {
		w.Wakeup()
	}
}

// maxShownError bounds the text of a resolution's error shown: the SDK
// quotes a credential endpoint's answer whole.
const maxShownError = 1024

// clippedError shows err's text clipped to maxShownError bytes.
type clippedError struct{ err error }

// Error is err's text, clipped, its control characters (a terminal's
// escape sequences, the lines of an HTML page) shown as spaces.
func (e clippedError) Error() string {
	s := e.err.Error()
	text := strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s[:min(len(s), maxShownError)], ""))
	if len(s) <= maxShownError {
		return text
	}
	return fmt.Sprintf("%s... (%d bytes; the first %d shown)", text, len(s), maxShownError)
}

// Unwrap returns err.
func (e clippedError) Unwrap() error { return e.err }

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

// awsSuffixes are the DNS suffixes of the AWS partitions.
var awsSuffixes = []string{".amazonaws.com", ".amazonaws.com.cn", ".amazonaws.eu", ".c2s.ic.gov", ".sc2s.sgov.gov", ".api.aws"}

// regionRE is the shape of a region name (us-east-1, us-gov-west-1),
// compiled when first needed.
var regionRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[a-z]{2,}(-[a-z0-9]+)+-\d+$`)
})

// RegionFromHost is the region named in an AWS host name: the label
// nearest the suffix that looks like a region
// (b-1.c.kafka.eu-west-1.amazonaws.com, vpce-1.kafka.us-east-1.vpce.amazonaws.com).
func RegionFromHost(host string) (string, bool) {
	name := strings.TrimSuffix(strings.ToLower(host), ".")
	for _, suffix := range awsSuffixes {
		prefix, ok := strings.CutSuffix(name, suffix)
		if !ok {
			continue
		}
		for _, label := range slices.Backward(strings.Split(prefix, ".")) {
			if regionRE().MatchString(label) {
				return label, true
			}
		}
	}
	return "", false
}
