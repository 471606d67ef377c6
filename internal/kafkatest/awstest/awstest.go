// Package awstest isolates tests from the machine's AWS setup and fakes
// the part of AWS STS that role assumption uses, on loopback.
package awstest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// Isolate points the AWS SDK at empty config and credentials files,
// clears the credentials and region of the environment, and disables the
// instance metadata service, so that a test reaches no AWS address and
// sees only the credentials it sets.
func Isolate(t *testing.T) {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE",
		"AWS_DEFAULT_PROFILE", "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ROLE_ARN", "AWS_WEB_IDENTITY_TOKEN_FILE",
		"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_STS"} {
		t.Setenv(name, "")
		os.Unsetenv(name)
	}
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "config"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "credentials"))
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
}

// Credentials are temporary credentials STS hands out.
type Credentials struct {
	AccessKeyID, SecretAccessKey, SessionToken string
	Lifetime                                   time.Duration
}

// STS is a fake STS answering AssumeRole (a signed request) and
// AssumeRoleWithWebIdentity (an unsigned one carrying the web identity
// token, as EKS's service account tokens are exchanged).
type STS struct {
	server *httptest.Server
	creds  Credentials

	mu     sync.Mutex // guards the fields below
	roles  []string   // the roles assumed, in order
	tokens []string   // the web identity tokens exchanged, in order
}

// NewSTS starts a fake STS handing out creds; Close stops it. Point the
// SDK at it with AWS_ENDPOINT_URL_STS=URL.
func NewSTS(creds Credentials) *STS {
	s := &STS{creds: creds}
	s.server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// URL is the endpoint's URL.
func (s *STS) URL() string { return s.server.URL }

// Close stops the server.
func (s *STS) Close() { s.server.Close() }

// Roles returns the role ARNs assumed so far.
func (s *STS) Roles() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.roles...)
}

// WebIdentityTokens returns the web identity tokens exchanged so far.
func (s *STS) WebIdentityTokens() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.tokens...)
}

func (s *STS) serve(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	action := r.PostForm.Get("Action")
	switch {
	case action == "AssumeRole" && r.Header.Get("Authorization") == "":
		http.Error(w, "unsigned request", http.StatusForbidden)
		return
	case action == "AssumeRoleWithWebIdentity" && r.PostForm.Get("WebIdentityToken") == "":
		http.Error(w, "no web identity token", http.StatusBadRequest)
		return
	case action != "AssumeRole" && action != "AssumeRoleWithWebIdentity":
		http.Error(w, "AssumeRole and AssumeRoleWithWebIdentity only", http.StatusBadRequest)
		return
	}
	role, session := r.PostForm.Get("RoleArn"), r.PostForm.Get("RoleSessionName")
	s.mu.Lock()
	s.roles = append(s.roles, role)
	if action == "AssumeRoleWithWebIdentity" {
		s.tokens = append(s.tokens, r.PostForm.Get("WebIdentityToken"))
	}
	s.mu.Unlock()
	exp := time.Now().Add(s.creds.Lifetime).UTC().Format(time.RFC3339)
	w.Header().Set("Content-Type", "text/xml")
	fmt.Fprintf(w, `<%[1]sResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><%[1]sResult>`+
		`<Credentials><AccessKeyId>%[2]s</AccessKeyId><SecretAccessKey>%[3]s</SecretAccessKey><SessionToken>%[4]s</SessionToken>`+
		`<Expiration>%[5]s</Expiration></Credentials><AssumedRoleUser><Arn>%[6]s/%[7]s</Arn><AssumedRoleId>AROATEST:%[7]s</AssumedRoleId>`+
		`</AssumedRoleUser></%[1]sResult><ResponseMetadata><RequestId>test</RequestId></ResponseMetadata></%[1]sResponse>`,
		action, s.creds.AccessKeyID, s.creds.SecretAccessKey, s.creds.SessionToken, exp, role, session)
}
