package oauth_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/kafkatest/oidctest"
	"github.com/kproduce/kproduce/internal/kafkatest/saslfront"
	"github.com/kproduce/kproduce/pkg/network"
	"github.com/kproduce/kproduce/pkg/oauth"
)

func TestStatic(t *testing.T) {
	iss, err := oidctest.NewIssuer(oidctest.Config{})
	require.NoError(t, err)
	defer iss.Close()
	now := time.Now()
	clock := func() time.Time { return now }

	s, err := oauth.NewStatic(" "+iss.Token("app", "kafka", time.Minute)+"\n", "the token of --sasl-token", clock)
	require.NoError(t, err)
	require.NoError(t, s.Prepare(nil))
	tok, err := s.Token()
	require.NoError(t, err)
	assert.NotContains(t, tok.Value, " ")

	now = now.Add(2 * time.Minute)
	err = s.Prepare(nil)
	require.Error(t, err)
	assert.NotErrorIs(t, err, network.ErrSASLPending, "final")
	assert.Regexp(t, `^the token of --sasl-token expired at \S+ \(1m[01]s ago\); get a new token \(its claims: sub=app aud=kafka scope=kafka exp=\S+\)$`, err.Error())

	opaque, err := oauth.NewStatic("opaque-token", "t", clock)
	require.NoError(t, err)
	tok, err = opaque.Token()
	require.NoError(t, err)
	assert.True(t, tok.Expiry.IsZero())
	_, err = oauth.NewStatic("  ", "the token of --sasl-token", clock)
	assert.EqualError(t, err, "the token of --sasl-token is empty")
}

// A token file is read at every authentication: a rotated file gives the
// new token.
func TestFile(t *testing.T) {
	iss, err := oidctest.NewIssuer(oidctest.Config{})
	require.NoError(t, err)
	defer iss.Close()
	path := filepath.Join(t.TempDir(), "token")
	f := oauth.NewFile(path, nil)
	err = f.Prepare(nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "token file: open "+path+": no such file or directory")

	first := iss.Token("app", "", time.Hour)
	require.NoError(t, os.WriteFile(path, []byte(first+"\n"), 0o600))
	require.NoError(t, f.Prepare(nil))
	tok, err := f.Token()
	require.NoError(t, err)
	assert.Equal(t, first, tok.Value)

	second := iss.Token("app2", "", time.Hour)
	require.NoError(t, os.WriteFile(path, []byte(second), 0o600))
	tok, err = f.Token()
	require.NoError(t, err)
	assert.Equal(t, second, tok.Value)

	require.NoError(t, os.WriteFile(path, []byte(iss.Token("app", "", -time.Second)), 0o600))
	_, err = f.Token()
	assert.ErrorContains(t, err, "the token in "+path+" expired at")
	require.NoError(t, os.WriteFile(path, nil, 0o600))
	_, err = f.Token()
	assert.EqualError(t, err, "token file "+path+" is empty")
}

// librdkafka's unsecured JWT is accepted by a broker's unsecured
// validator (the front's), with its scope and expiry.
func TestUnsecured(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	u, err := oauth.NewUnsecured(oauth.UnsecuredConfig{Principal: "admin", Scope: []string{"a", "b"}, Lifetime: 600 * time.Second,
		Now: func() time.Time { return now }})
	require.NoError(t, err)
	tok, err := u.Token()
	require.NoError(t, err)
	assert.Equal(t, now.Add(600*time.Second), tok.Expiry)
	assert.Equal(t, "sub=admin scope=\"a b\" exp=2027-01-15T08:10:00Z", tok.Claims)
	assert.Equal(t, "eyJhbGciOiJub25lIn0", tok.Value[:19], `{"alg":"none"}`)

	mech, err := saslfront.OAuthBearer(saslfront.OAuthBearerConfig{AllowUnsecured: true, RequiredScopes: []string{"b"}})
	require.NoError(t, err)
	ex := mech.Start(saslfront.ConnInfo{Now: now})
	_, done, err := ex.Step([]byte("n,,\x01auth=Bearer " + tok.Value + "\x01\x01"))
	require.NoError(t, err)
	assert.True(t, done)
	assert.Equal(t, "admin", ex.(saslfront.Principal).Principal())

	again, _ := u.Token()
	assert.Equal(t, tok, again, "the same token until 80% of its life")
	now = now.Add(480 * time.Second)
	again, _ = u.Token()
	assert.NotEqual(t, tok.Value, again.Value)
	_, err = oauth.NewUnsecured(oauth.UnsecuredConfig{})
	assert.Error(t, err)
}
