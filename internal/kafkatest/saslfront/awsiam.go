package saslfront

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// AWSCredential is an access key the AWS_MSK_IAM mechanism knows.
type AWSCredential struct {
	SecretKey string
	// SessionToken, when set, must be sent (temporary credentials).
	SessionToken string
	// Principal is the identity authenticated (default: the access key).
	Principal string
}

// AWSIAMConfig configures the AWS_MSK_IAM mechanism.
type AWSIAMConfig struct {
	// Credentials maps access key ids to their credentials.
	Credentials map[string]AWSCredential
	// Region is the region the signature must be for.
	Region string
	// Host, when set, is the host the signature must name; by default the
	// host the client connected to.
	Host string
}

// AWSIAM is the AWS_MSK_IAM mechanism as Amazon MSK serves it: one
// client message, the JSON of a SigV4-presigned kafka-cluster:Connect
// request (aws-msk-iam-auth's version 2020_10_22), checked against known
// credentials; the answer is a JSON with the version and a request id.
func AWSIAM(cfg AWSIAMConfig) Mechanism { return awsMechanism{cfg: cfg} }

type awsMechanism struct{ cfg AWSIAMConfig }

func (awsMechanism) Name() string { return "AWS_MSK_IAM" }

func (m awsMechanism) Start(info ConnInfo) Exchange {
	host := m.cfg.Host
	if host == "" {
		host = info.LocalHost()
	}
	return &awsExchange{cfg: m.cfg, host: host, now: info.Now, id: info.ID}
}

type awsExchange struct {
	cfg       AWSIAMConfig
	host      string
	now       time.Time
	id        int
	principal string
}

// awsQueryNames are the payload's keys signed as query parameters, with
// their names in the presigned URL.
var awsQueryNames = map[string]string{
	"action": "Action", "x-amz-algorithm": "X-Amz-Algorithm", "x-amz-credential": "X-Amz-Credential",
	"x-amz-date": "X-Amz-Date", "x-amz-expires": "X-Amz-Expires", "x-amz-signedheaders": "X-Amz-SignedHeaders",
	"x-amz-security-token": "X-Amz-Security-Token",
}

// Step verifies the signed payload.
func (e *awsExchange) Step(msg []byte) ([]byte, bool, error) {
	var p map[string]string
	if err := json.Unmarshal(msg, &p); err != nil {
		return nil, false, fmt.Errorf("[%d] Invalid authentication payload: %v", e.id, err)
	}
	if err := e.verify(p); err != nil {
		return nil, false, fmt.Errorf("[%d] Access denied: %v", e.id, err)
	}
	resp, _ := json.Marshal(map[string]string{"version": "2020_10_22", "request-id": fmt.Sprintf("req-%d", e.id)})
	return resp, true, nil
}

// verify checks the payload's fields and SigV4 signature.
func (e *awsExchange) verify(p map[string]string) error {
	switch {
	case p["version"] != "2020_10_22":
		return fmt.Errorf("version %q", p["version"])
	case p["action"] != "kafka-cluster:Connect":
		return fmt.Errorf("action %q", p["action"])
	case p["x-amz-algorithm"] != "AWS4-HMAC-SHA256":
		return fmt.Errorf("algorithm %q", p["x-amz-algorithm"])
	case p["host"] != e.host:
		return fmt.Errorf("host %q, want %q", p["host"], e.host)
	case p["x-amz-signedheaders"] != "host":
		return fmt.Errorf("signed headers %q", p["x-amz-signedheaders"])
	case p["user-agent"] == "":
		return fmt.Errorf("no user agent")
	}
	cred := strings.Split(p["x-amz-credential"], "/")
	if len(cred) != 5 || cred[3] != "kafka-cluster" || cred[4] != "aws4_request" {
		return fmt.Errorf("credential scope %q", strings.Join(cred[1:], "/"))
	}
	akid, date, region := cred[0], cred[1], cred[2]
	c, ok := e.cfg.Credentials[akid]
	switch {
	case !ok:
		return fmt.Errorf("unknown access key %s", akid)
	case region != e.cfg.Region:
		return fmt.Errorf("signed for region %s, this cluster is in %s", region, e.cfg.Region)
	case c.SessionToken != p["x-amz-security-token"]:
		return fmt.Errorf("wrong or missing session token")
	}
	signedAt, err := time.Parse("20060102T150405Z", p["x-amz-date"])
	if err != nil || !strings.HasPrefix(p["x-amz-date"], date) {
		return fmt.Errorf("date %q", p["x-amz-date"])
	}
	expires, err := strconv.Atoi(p["x-amz-expires"])
	if err != nil || expires <= 0 || expires > 900 {
		return fmt.Errorf("expires %q", p["x-amz-expires"])
	}
	if e.now.Before(signedAt.Add(-5*time.Minute)) || !e.now.Before(signedAt.Add(time.Duration(expires)*time.Second)) {
		return fmt.Errorf("signature dated %s is not valid at %s", signedAt.Format(time.RFC3339), e.now.UTC().Format(time.RFC3339))
	}
	want := sigV4(c.SecretKey, date, region, p["x-amz-date"], canonicalRequest(p, e.host))
	if !hmac.Equal([]byte(want), []byte(p["x-amz-signature"])) {
		return fmt.Errorf("the signature does not match")
	}
	e.principal = c.Principal
	if e.principal == "" {
		e.principal = akid
	}
	return nil
}

// canonicalRequest is the SigV4 canonical request of the presigned GET /
// that the payload stands for.
func canonicalRequest(p map[string]string, host string) string {
	var q []string
	for key, name := range awsQueryNames {
		if v, ok := p[key]; ok {
			q = append(q, awsEscape(name)+"="+awsEscape(v))
		}
	}
	sort.Strings(q)
	const emptyHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	return "GET\n/\n" + strings.Join(q, "&") + "\nhost:" + host + "\n\nhost\n" + emptyHash
}

// sigV4 signs a canonical request (AWS Signature Version 4).
func sigV4(secret, date, region, timestamp, canonical string) string {
	sum := sha256.Sum256([]byte(canonical))
	scope := date + "/" + region + "/kafka-cluster/aws4_request"
	toSign := "AWS4-HMAC-SHA256\n" + timestamp + "\n" + scope + "\n" + hex.EncodeToString(sum[:])
	key := []byte("AWS4" + secret)
	for _, part := range []string{date, region, "kafka-cluster", "aws4_request"} {
		key = hmacSHA256(key, part)
	}
	return hex.EncodeToString(hmacSHA256(key, toSign))
}

func hmacSHA256(key []byte, data string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(data))
	return h.Sum(nil)
}

// awsEscape is SigV4's URI encoding: every byte but the unreserved
// characters (RFC 3986) percent-encoded, upper-case hex.
func awsEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if ('A' <= c && c <= 'Z') || ('a' <= c && c <= 'z') || ('0' <= c && c <= '9') || strings.IndexByte("-_.~", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

// Principal is the credential's principal.
func (e *awsExchange) Principal() string { return e.principal }
