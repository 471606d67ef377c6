package mskiam_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
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
