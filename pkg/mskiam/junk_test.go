package mskiam_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/kafkatest/awstest"
	"github.com/kproduce/kproduce/pkg/mskiam"
	"github.com/kproduce/kproduce/pkg/network"
)

// A container credentials endpoint that fails with a long answer is told
// clipped, without its control characters.
func TestContainerEndpointLongError(t *testing.T) {
	awstest.Isolate(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = fmt.Fprintf(w, `{"code":"x","message":"\u001b[31m%s"}`, strings.Repeat("m", 100_000))
	}))
	defer srv.Close()
	t.Setenv("AWS_CONTAINER_CREDENTIALS_FULL_URI", srv.URL+"/v1/credentials")
	m := mskiam.New(mskiam.Config{Region: "eu-west-1", Sleep: func(ctx context.Context, _ time.Duration) error { <-ctx.Done(); return ctx.Err() }})
	w := make(waker, 1)
	defer m.Release(w)
	require.ErrorIs(t, m.Prepare(w), network.ErrSASLPending)
	<-w
	err := m.Prepare(w)
	require.ErrorIs(t, err, network.ErrSASLPending)
	assert.Contains(t, err.Error(), "1 attempts failed, the last: ")
	assert.Contains(t, err.Error(), "... (")
	assert.Less(t, len(err.Error()), 1300)
	assert.NotContains(t, err.Error(), "\x1b")
}

// Credentials that expire in year 9999 are refreshed in centuries, not
// every second (80% of a saturated duration wrapped around).
func TestCredentialsExpiringFarAhead(t *testing.T) {
	awstest.Isolate(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"AccessKeyId":"ASIACONTAINER","SecretAccessKey":"container-secret","Token":"container-token",` +
			`"Expiration":"9999-12-31T00:00:00Z"}`))
	}))
	defer srv.Close()
	t.Setenv("AWS_CONTAINER_CREDENTIALS_FULL_URI", srv.URL+"/v1/credentials")
	waits := make(chan time.Duration, 1)
	m := mskiam.New(mskiam.Config{Region: "eu-west-1", Sleep: func(ctx context.Context, d time.Duration) error {
		waits <- d
		<-ctx.Done()
		return ctx.Err()
	}})
	prepared(t, m)
	assert.Greater(t, <-waits, 200*365*24*time.Hour)
}

// hugeAnswer writes a 200 MB credentials answer (an access key that does
// not end) and counts what it could write before the client gave up.
func hugeAnswer(written *atomic.Int64) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		chunk := []byte(strings.Repeat("A", 64<<10))
		if _, err := w.Write([]byte(`{"AccessKeyId":"`)); err != nil {
			return
		}
		for range 200 << 20 / len(chunk) {
			n, err := w.Write(chunk)
			written.Add(int64(n))
			if err != nil {
				return
			}
		}
	}
}

// firstFailure is the error of m's first failed credential resolution.
func firstFailure(t *testing.T, m *mskiam.Mechanism) error {
	t.Helper()
	w := make(waker, 1)
	t.Cleanup(func() { m.Release(w) })
	require.ErrorIs(t, m.Prepare(w), network.ErrSASLPending)
	select {
	case <-w:
	case <-time.After(30 * time.Second):
		t.Fatal("no outcome of the credential resolution")
	}
	return m.Prepare(w)
}

// assertHugeAnswerCut checks that m's first credential resolution fails
// on the huge answer of srv, which wrote written bytes of it, without
// reading it to its end.
func assertHugeAnswerCut(t *testing.T, m *mskiam.Mechanism, srv *httptest.Server, written *atomic.Int64) {
	t.Helper()
	err := firstFailure(t, m)
	require.ErrorIs(t, err, network.ErrSASLPending)
	assert.Contains(t, err.Error(), "the answer is larger than 1048576 bytes")
	srv.CloseClientConnections()
	assert.Less(t, written.Load(), int64(64<<20), "the answer was not read to its end")
}

// A credential source answering 200 MB (a container endpoint, the
// instance metadata service) is read no further than a megabyte: the
// resolution fails saying so, instead of reading it all into memory.
func TestCredentialSourceHugeAnswer(t *testing.T) {
	stop := mskiam.Config{Region: "eu-west-1", Sleep: func(ctx context.Context, _ time.Duration) error { <-ctx.Done(); return ctx.Err() }}
	t.Run("container endpoint", func(t *testing.T) {
		awstest.Isolate(t)
		var written atomic.Int64
		srv := httptest.NewServer(hugeAnswer(&written))
		defer srv.Close()
		t.Setenv("AWS_CONTAINER_CREDENTIALS_FULL_URI", srv.URL+"/v1/credentials")
		assertHugeAnswerCut(t, mskiam.New(stop), srv, &written)
	})
	t.Run("instance metadata", func(t *testing.T) {
		awstest.Isolate(t)
		var written atomic.Int64
		mux := http.NewServeMux()
		mux.HandleFunc("PUT /latest/api/token", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Aws-Ec2-Metadata-Token-Ttl-Seconds", r.Header.Get("X-Aws-Ec2-Metadata-Token-Ttl-Seconds"))
			_, _ = w.Write([]byte("imds-session"))
		})
		mux.HandleFunc("GET /latest/meta-data/iam/security-credentials/", func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write([]byte("role"))
		})
		mux.HandleFunc("GET /latest/meta-data/iam/security-credentials/role", hugeAnswer(&written))
		srv := httptest.NewServer(mux)
		defer srv.Close()
		t.Setenv("AWS_EC2_METADATA_DISABLED", "false")
		t.Setenv("AWS_EC2_METADATA_SERVICE_ENDPOINT", srv.URL)
		assertHugeAnswerCut(t, mskiam.New(stop), srv, &written)
	})
}
