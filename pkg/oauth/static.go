package oauth

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/kproduce/kproduce/pkg/network"
)

// maxTokenBytes bounds a token read from a file.
const maxTokenBytes = 1 << 20

// newToken wraps a token value with what its claims say, when it is a
// JWT.
func newToken(value string) network.OAuthBearerToken {
	tok := network.OAuthBearerToken{Value: value}
	if c, ok := ParseClaims(value); ok {
		tok.Expiry, tok.Claims = c.Expiry, c.Summary()
	}
	return tok
}

// checkExpiry fails a token that expired; what names where it came from.
func checkExpiry(tok network.OAuthBearerToken, what string, now time.Time) error {
	if tok.Expiry.IsZero() || now.Before(tok.Expiry) {
		return nil
	}
	return fmt.Errorf("%s expired at %s (%v ago); get a new token (its claims: %s)",
		what, tok.Expiry.UTC().Format(time.RFC3339), now.Sub(tok.Expiry).Round(time.Second), tok.Claims)
}

// Static is one token given by the user. A JWT is checked for expiry
// before every use; an opaque token is sent as it is.
type Static struct {
	token network.OAuthBearerToken
	what  string
	now   func() time.Time
}

// NewStatic returns a source of token; what names it in errors ("the
// token of --sasl-token"); now is the clock (nil: time.Now).
func NewStatic(token, what string, now func() time.Time) (*Static, error) {
	token = strings.TrimSpace(token)
	if token == "" {
		return nil, fmt.Errorf("%s is empty", what)
	}
	if now == nil {
		now = time.Now
	}
	return &Static{token: newToken(token), what: what, now: now}, nil
}

// Token returns the token, or an error once it expired.
func (s *Static) Token() (network.OAuthBearerToken, error) {
	if err := checkExpiry(s.token, s.what, s.now()); err != nil {
		return network.OAuthBearerToken{}, err
	}
	return s.token, nil
}

// Prepare reports an expired token at once, before any connection.
func (s *Static) Prepare(network.Waker) error {
	_, err := s.Token()
	return err
}

// Release does nothing: a static token needs no background work.
func (s *Static) Release(network.Waker) {}

// File is a token read from a file at every authentication, so that a
// token the system rotates (a Kubernetes projected service-account token)
// is always the current one.
type File struct {
	path string
	now  func() time.Time
}

// NewFile returns a source reading path; now is the clock (nil:
// time.Now).
func NewFile(path string, now func() time.Time) *File {
	if now == nil {
		now = time.Now
	}
	return &File{path: path, now: now}
}

// Token reads the file and returns its token (surrounding white space
// removed), or why it cannot be used.
func (f *File) Token() (network.OAuthBearerToken, error) {
	fh, err := os.Open(f.path)
	if err != nil {
		return network.OAuthBearerToken{}, fmt.Errorf("token file: %w", err)
	}
	defer fh.Close()
	b, err := io.ReadAll(io.LimitReader(fh, maxTokenBytes+1))
	if err != nil {
		return network.OAuthBearerToken{}, fmt.Errorf("token file %s: %w", f.path, err)
	}
	if len(b) > maxTokenBytes {
		return network.OAuthBearerToken{}, fmt.Errorf("token file %s: larger than %d bytes: not a token", f.path, maxTokenBytes)
	}
	value := strings.TrimSpace(string(b))
	if value == "" {
		return network.OAuthBearerToken{}, errors.New("token file " + f.path + " is empty")
	}
	tok := newToken(value)
	if err := checkExpiry(tok, "the token in "+f.path, f.now()); err != nil {
		return network.OAuthBearerToken{}, err
	}
	return tok, nil
}

// Prepare reads the file before any connection, so a missing file or an
// expired token is reported at once.
func (f *File) Prepare(network.Waker) error {
	_, err := f.Token()
	return err
}

// Release does nothing: the file is read at each authentication.
func (f *File) Release(network.Waker) {}
