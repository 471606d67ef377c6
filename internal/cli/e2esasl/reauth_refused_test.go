package e2esasl

import (
	"context"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kproduce/kproduce/internal/cli"
	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/cli/report"
	"github.com/kproduce/kproduce/internal/kafkatest"
)

// Once the records flow, the brokers of a kfake cluster with
// connections.max.reauth.ms refuse the re-authentications (the password
// changed): the run stops, exit 1, with the refusal as an authentication
// failure, told once by the error that stopped it, with no notice per
// broker repeating it.
func TestReauthenticationRefusedToldOnce(t *testing.T) {
	const refusal = "Authentication failed: the password of alice changed"
	cluster := kafkatest.NewCluster(t, kfake.NumBrokers(3), kfake.SeedTopics(3, "t"), kfake.EnableSASL(),
		kfake.Superuser("PLAIN", "alice", "alice-s3cret"), kfake.BrokerConfigs(map[string]string{"connections.max.reauth.ms": "2000"}))
	var refuse atomic.Bool
	var refused atomic.Int32
	cluster.ControlKey(int16(kmsg.SASLAuthenticate), func(req kmsg.Request) (kmsg.Response, error, bool) {
		cluster.KeepControl()
		if !refuse.Load() {
			return nil, nil, false
		}
		refused.Add(1)
		resp := req.ResponseKind().(*kmsg.SASLAuthenticateResponse)
		resp.ErrorCode = kerr.SaslAuthenticationFailed.Code
		resp.ErrorMessage = kmsg.StringPtr(refusal)
		return resp, nil, true
	})

	stdin, feed := io.Pipe()
	defer feed.Close()
	r := kafkatest.Start(context.Background(), cli.Execute, stdin, "-b", kafkatest.Brokers(cluster), "-t", "t", "-K", ":",
		"--sasl-mechanism", "PLAIN", "--sasl-username", "alice", "--sasl-password", "alice-s3cret")
	go func() { _, _ = io.WriteString(feed, keyedLines(30)) }()
	r.WaitStdout(t, 30, 30*time.Second) // delivered: every leader's connection is authenticated
	refuse.Store(true)
	code := r.Wait(t, 30*time.Second) // the re-authentications are due within 2s
	stderr := r.Stderr.String()
	t.Logf("exit %d, %d refusals:\n%s", code, refused.Load(), stderr)

	assert.Equal(t, cmdutil.ExitFailed, code)
	assert.Positive(t, refused.Load())
	assert.Equal(t, 1, strings.Count(stderr, "SASL_AUTHENTICATION_FAILED: SASL authentication failed: "+refusal), "told once:\n%s", stderr)
	fatal := kafkatest.LinesWith(stderr, "error: broker ")
	require.Len(t, fatal, 1)
	assert.Contains(t, fatal[0], "authentication failed: SASL PLAIN: SASL_AUTHENTICATION_FAILED")
	assert.Empty(t, kafkatest.LinesWith(stderr, report.NoticePrefix), "no notice repeats it")
	assert.NotContains(t, stderr, "alice-s3cret")
}
