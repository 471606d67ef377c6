package e2esasl

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/kafkatest/awstest"
	"github.com/kproduce/kproduce/internal/kafkatest/saslfront"
)

// The re-authentication runs of the other mechanisms: 2s sessions (each
// re-authenticated after 1s), a 5s stream, at least three
// re-authentications on every connection that lives through it.
const (
	mechReauthRecords = 250
	mechReauthRate    = 50
	mechReauthMin     = 3
)

// PLAIN connections re-authenticate with the same credentials, through
// the front that enforces the session lifetime.
func TestReauthenticationPlain(t *testing.T) {
	plain := saslfront.Plain(map[string]string{readerUser: readerPass, "plain-user": "plain-s3cret"})
	e := newEnvWith(t, nil, saslfront.Config{Mechanisms: []saslfront.Mechanism{plain}, SessionLifetime: 2 * time.Second}, 3)
	reauthRun(t, e, "plain-user", mechReauthRecords, mechReauthRate, mechReauthMin,
		"--sasl-mechanism", "PLAIN", "--sasl-username", "plain-user", "--sasl-password", "plain-s3cret")
}

// A token file rotated every half second with tokens of three seconds:
// every re-authentication reads the file again, or the token it sends
// would have expired (the front refuses expired tokens and ends a session
// no later than its token).
func TestReauthenticationTokenFile(t *testing.T) {
	e := newEnv(t, envConfig{SessionLifetime: 2 * time.Second})
	path := filepath.Join(t.TempDir(), "token")
	rotate := func() {
		tmp := path + ".new"
		require.NoError(t, os.WriteFile(tmp, []byte(e.issuer.Token("rotated", "kafka", 3*time.Second)), 0o600))
		require.NoError(t, os.Rename(tmp, path)) // as a projected volume swaps its files: never half written
	}
	rotate()
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(500 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				rotate()
			}
		}
	}()
	defer func() {
		close(stop)
		<-stopped
	}()
	reauthRun(t, e, "rotated", mechReauthRecords, mechReauthRate, mechReauthMin, "--sasl-token-file", path)
}

// AWS_MSK_IAM connections re-authenticate with a new signature each
// time: every authentication of a connection carries a signature dated
// later than the one before.
func TestReauthenticationAWSMSKIAM(t *testing.T) {
	awstest.Isolate(t)
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDREAUTH")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "reauth-s3cret")
	rec := &signatureRecorder{Mechanism: saslfront.AWSIAM(saslfront.AWSIAMConfig{Region: "eu-west-1",
		Credentials: map[string]saslfront.AWSCredential{"AKIDREAUTH": {SecretKey: "reauth-s3cret"}}})}
	e := newEnv(t, envConfig{SessionLifetime: 2 * time.Second, Extra: []saslfront.Mechanism{rec}})
	reauthRun(t, e, "AKIDREAUTH", mechReauthRecords, mechReauthRate, mechReauthMin, "--sasl-mechanism", "AWS_MSK_IAM", "--aws-region", "eu-west-1")
	reauthenticated := 0
	for id, sigs := range rec.byConnection() {
		for i := 1; i < len(sigs); i++ {
			assert.True(t, sigs[i].signedAt.After(sigs[i-1].signedAt), "connection %d: authentication %d signed at %v, the one before at %v",
				id, i+1, sigs[i].signedAt, sigs[i-1].signedAt)
			assert.NotEqual(t, sigs[i-1].signature, sigs[i].signature, "connection %d: a signature sent again", id)
			assert.True(t, sigs[i].reauth)
			reauthenticated++
		}
	}
	assert.GreaterOrEqual(t, reauthenticated, mechReauthMin)
}

// signed is one AWS_MSK_IAM client message as the front received it.
type signed struct {
	signedAt  time.Time
	signature string
	reauth    bool
}

// signatureRecorder is a front mechanism that records the signature of
// every authentication, by connection, before its mechanism checks it.
type signatureRecorder struct {
	saslfront.Mechanism
	mu   sync.Mutex
	seen map[int][]signed
}

func (r *signatureRecorder) Start(info saslfront.ConnInfo) saslfront.Exchange {
	return &recordingExchange{Exchange: r.Mechanism.Start(info), r: r, info: info}
}

func (r *signatureRecorder) byConnection() map[int][]signed {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[int][]signed{}
	for id, s := range r.seen {
		out[id] = append([]signed(nil), s...)
	}
	return out
}

type recordingExchange struct {
	saslfront.Exchange
	r    *signatureRecorder
	info saslfront.ConnInfo
}

func (x *recordingExchange) Step(msg []byte) ([]byte, bool, error) {
	var p map[string]string
	if json.Unmarshal(msg, &p) == nil {
		at, _ := time.Parse("20060102T150405Z", p["x-amz-date"])
		x.r.mu.Lock()
		if x.r.seen == nil {
			x.r.seen = map[int][]signed{}
		}
		x.r.seen[x.info.ID] = append(x.r.seen[x.info.ID], signed{signedAt: at, signature: p["x-amz-signature"], reauth: x.info.Reauthentication})
		x.r.mu.Unlock()
	}
	return x.Exchange.Step(msg)
}

// Principal is the inner exchange's principal.
func (x *recordingExchange) Principal() string {
	if p, ok := x.Exchange.(saslfront.Principal); ok {
		return p.Principal()
	}
	return ""
}
