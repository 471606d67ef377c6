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

// STS is a fake STS answering AssumeRole.
type STS struct {
	server *httptest.Server
	creds  Credentials

	mu    sync.Mutex
	roles []string // the roles assumed, in order
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

func (s *STS) serve(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil || r.PostForm.Get("Action") != "AssumeRole" {
		http.Error(w, "AssumeRole only", http.StatusBadRequest)
		return
	}
	if r.Header.Get("Authorization") == "" {
		http.Error(w, "unsigned request", http.StatusForbidden)
		return
	}
	role := r.PostForm.Get("RoleArn")
	s.mu.Lock()
	s.roles = append(s.roles, role)
	s.mu.Unlock()
	exp := time.Now().Add(s.creds.Lifetime).UTC().Format(time.RFC3339)
	w.Header().Set("Content-Type", "text/xml")
	fmt.Fprintf(w, `<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><AssumeRoleResult>`+
		`<Credentials><AccessKeyId>%s</AccessKeyId><SecretAccessKey>%s</SecretAccessKey><SessionToken>%s</SessionToken>`+
		`<Expiration>%s</Expiration></Credentials><AssumedRoleUser><Arn>%s/%s</Arn><AssumedRoleId>AROATEST:%s</AssumedRoleId>`+
		`</AssumedRoleUser></AssumeRoleResult><ResponseMetadata><RequestId>test</RequestId></ResponseMetadata></AssumeRoleResponse>`,
		s.creds.AccessKeyID, s.creds.SecretAccessKey, s.creds.SessionToken, exp, role, r.PostForm.Get("RoleSessionName"),
		r.PostForm.Get("RoleSessionName"))
}
