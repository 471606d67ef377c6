package schema

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/twmb/franz-go/pkg/sr"
)

// maxResponseBytes bounds a registry's answer.
const maxResponseBytes = 16 << 20

// RegistryConfig says where the Schema Registry is and how to talk to it.
type RegistryConfig struct {
	// URLs are the registry's addresses, tried in order; a host:port
	// without a scheme is http (https with TLS set).
	URLs []string
	// User and Password are basic auth credentials; a URL's own user
	// information is used when they are empty.
	User, Password string
	// Token is a bearer token (instead of basic auth).
	Token string
	// TLS is the client TLS configuration for https; nil: the system's.
	TLS *tls.Config
	// UserAgent is sent with every request.
	UserAgent string
}

// Registry is a Schema Registry client.
type Registry struct {
	cl   *sr.Client
	urls []string // without user information
}

// NewRegistry returns a client of the registry cfg names. Its errors are
// usage errors (a URL that does not parse).
func NewRegistry(cfg RegistryConfig) (*Registry, error) {
	if len(cfg.URLs) == 0 {
		return nil, schemaErrorf("no schema registry URL")
	}
	user, pass := cfg.User, cfg.Password
	var urls []string
	for _, raw := range cfg.URLs {
		u, err := ParseRegistryURL(raw, cfg.TLS != nil)
		if err != nil {
			return nil, err
		}
		if u.User != nil && user == "" && cfg.Token == "" {
			user = u.User.Username()
			pass, _ = u.User.Password()
		}
		u.User = nil
		urls = append(urls, strings.TrimSuffix(u.String(), "/"))
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	if cfg.TLS != nil {
		transport.TLSClientConfig = cfg.TLS
	}
	opts := []sr.ClientOpt{
		sr.URLs(urls...),
		sr.HTTPClient(&http.Client{Transport: limitedTransport{transport}}),
	}
	if cfg.UserAgent != "" {
		opts = append(opts, sr.UserAgent(cfg.UserAgent))
	}
	switch {
	case cfg.Token != "":
		opts = append(opts, sr.BearerToken(cfg.Token))
	case user != "":
		opts = append(opts, sr.BasicAuth(user, pass))
	}
	cl, err := sr.NewClient(opts...)
	if err != nil {
		return nil, schemaErrorf("schema registry: %v", err)
	}
	return &Registry{cl: cl, urls: urls}, nil
}

// ParseRegistryURL reads one registry address: a URL, or host:port
// (http, or https when tls is set).
func ParseRegistryURL(raw string, tls bool) (*url.URL, error) {
	s := strings.TrimSpace(raw)
	if !strings.Contains(s, "://") {
		scheme := "http://"
		if tls {
			scheme = "https://"
		}
		s = scheme + s
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, schemaErrorf("schema registry URL %q: want http://host:port or https://host:port", redactURL(raw))
	}
	return u, nil
}

// redactURL hides the password of a URL given as text
// (http://user:[redacted]@host).
func redactURL(raw string) string {
	scheme := strings.Index(raw, "://")
	if scheme < 0 {
		return raw
	}
	rest := raw[scheme+3:]
	authority := rest
	if end := strings.IndexAny(rest, "/?#"); end >= 0 {
		authority = rest[:end]
	}
	at, colon := strings.LastIndexByte(authority, '@'), strings.IndexByte(authority, ':')
	if at < 0 || colon < 0 || colon > at {
		return raw
	}
	return raw[:scheme+3] + authority[:colon+1] + "[redacted]" + rest[at:]
}

// limitedTransport bounds the answers read from the registry.
type limitedTransport struct{ next http.RoundTripper }

// RoundTrip sends the request and limits the body of the answer.
func (t limitedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	resp.Body = &limitedBody{body: resp.Body, left: maxResponseBytes}
	return resp, nil
}

// limitedBody is a response body read up to a limit: past it, reading
// fails (an answer cut short would read as malformed JSON).
type limitedBody struct {
	body io.ReadCloser
	left int64
}

// Read reads the body, failing past the limit.
func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, fmt.Errorf("the answer is larger than %d bytes", maxResponseBytes)
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.body.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		return n - 1, fmt.Errorf("the answer is larger than %d bytes", maxResponseBytes)
	}
	return n, err
}

// Close closes the body.
func (b *limitedBody) Close() error { return b.body.Close() }

// RegistryError is a failure of the Schema Registry: its answer (HTTP
// status, error code and message) or why there was none.
type RegistryError struct {
	// URL is the request's URL (the registry's address when unknown).
	URL string
	// What is what was asked: `register under subject "t-value"`,
	// "schema id 7".
	What string
	// Status is the HTTP status, 0 without an answer.
	Status int
	// Code and Message are the registry's own error code and message.
	Code    int
	Message string
	// Err is the transport's error when there was no answer.
	Err error
}

// Error names the URL, what was asked, the status, code and message.
func (e *RegistryError) Error() string {
	if e.Status == 0 {
		return fmt.Sprintf("schema registry %s: %s: %v", e.URL, e.What, e.Err)
	}
	return fmt.Sprintf("schema registry %s: %s: HTTP %d, error code %d: %s", e.URL, e.What, e.Status, e.Code, e.Message)
}

// Unwrap returns the transport's error.
func (e *RegistryError) Unwrap() error { return e.Err }

// NotFound reports whether the registry answered that the subject,
// version or schema does not exist.
func (e *RegistryError) NotFound() bool { return e.Status == http.StatusNotFound }

// wrap makes err, from asking what, a *RegistryError.
func (r *Registry) wrap(err error, what string) error {
	if err == nil {
		return nil
	}
	re := &RegistryError{URL: r.urls[0], What: what}
	var resp *sr.ResponseError
	var uerr *url.Error
	switch {
	case errors.As(err, &resp):
		re.URL, re.Status, re.Code, re.Message = resp.URL, resp.StatusCode, resp.ErrorCode, resp.Message
		if re.Message == "" {
			re.Message = string(resp.Raw)
		}
		re.Message = registryMessage(re.Message)
	case errors.As(err, &uerr):
		re.URL, re.Err = r.absoluteURL(uerr.URL), uerr.Err
		if errors.Is(err, context.DeadlineExceeded) {
			re.Err = errors.New("no answer in time")
		}
	default:
		re.Err = err
	}
	return re
}

// maxMessageBytes bounds the registry's error message shown: a proxy's
// HTML page is not repeated whole.
const maxMessageBytes = 1024

// registryMessage is the registry's error message as shown: clipped to
// maxMessageBytes, and quoted when it holds control characters (a
// terminal's escape sequences, an HTML page's lines).
func registryMessage(s string) string {
	shown := s
	if len(s) > maxMessageBytes {
		n := maxMessageBytes
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		shown = s[:n]
	}
	if strings.ContainsFunc(shown, func(r rune) bool { return !unicode.IsPrint(r) && r != ' ' }) {
		shown = strconv.Quote(shown)
	}
	if len(shown) < len(s) {
		shown += fmt.Sprintf("... (%d bytes; the first %d shown)", len(s), min(len(s), maxMessageBytes))
	}
	return shown
}

// absoluteURL is a request's URL with the registry's address when it
// lacks one (after a relative redirect).
func (r *Registry) absoluteURL(u string) string {
	if strings.HasPrefix(u, "/") {
		return r.urls[0] + u
	}
	return u
}

// schemaByID fetches a schema by id.
func (r *Registry) schemaByID(ctx context.Context, id int) (sr.Schema, error) {
	s, err := r.cl.SchemaByID(ctx, id)
	return s, r.wrap(err, fmt.Sprintf("schema id %d", id))
}

// latest fetches a subject's latest version.
func (r *Registry) latest(ctx context.Context, subject string) (sr.SubjectSchema, error) {
	s, err := r.cl.SchemaByVersion(ctx, subject, -1)
	return s, r.wrap(err, fmt.Sprintf("latest version of subject %q", subject))
}

// version fetches one version of a subject.
func (r *Registry) version(ctx context.Context, subject string, version int) (sr.SubjectSchema, error) {
	s, err := r.cl.SchemaByVersion(ctx, subject, version)
	return s, r.wrap(err, fmt.Sprintf("version %d of subject %q", version, subject))
}

// register registers a schema under a subject and returns its id.
func (r *Registry) register(ctx context.Context, subject string, s sr.Schema) (int, error) {
	id, err := r.cl.RegisterSchema(ctx, subject, s, -1, -1)
	return id, r.wrap(err, fmt.Sprintf("register under subject %q", subject))
}

// lookup finds a schema under a subject: its id and version.
func (r *Registry) lookup(ctx context.Context, subject string, s sr.Schema) (sr.SubjectSchema, error) {
	ss, err := r.cl.LookupSchema(ctx, subject, s)
	return ss, r.wrap(err, fmt.Sprintf("look up the schema under subject %q", subject))
}
