package network_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/network"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// tokens is a token source that hands out its tokens in turn.
type tokens struct{ list []network.OAuthBearerToken }

func (s *tokens) Token() (network.OAuthBearerToken, error) {
	tok := s.list[0]
	if len(s.list) > 1 {
		s.list = s.list[1:]
	}
	return tok, nil
}

func TestOAuthBearerExchange(t *testing.T) {
	src := &tokens{list: []network.OAuthBearerToken{{Value: "tok-1"}, {Value: "tok-2"}}}
	mech := network.OAuthBearerMechanism{Tokens: src, Extensions: map[string]string{"logicalCluster": "lkc-1", "identityPoolId": "pool-2"}}
	h, _ := saslHarnessCfg(t, reauthConfig(mech))
	hs, _ := h.sel.LastSent(1)
	assert.Equal(t, "OAUTHBEARER", hs.Body.(*protocol.SaslHandshakeRequest).Mechanism)
	h.sel.RespondTo(hs, &protocol.SaslHandshakeResponse{})
	h.poll()
	auth, _ := h.sel.LastSent(1)
	assert.Equal(t, "n,,\x01auth=Bearer tok-1\x01identityPoolId=pool-2\x01logicalCluster=lkc-1\x01\x01",
		string(auth.Body.(*protocol.SaslAuthenticateRequest).AuthBytes))
	h.sel.RespondTo(auth, &protocol.SaslAuthenticateResponse{SessionLifetimeMs: 1000})
	h.poll()
	require.Equal(t, network.Ready, h.c.ConnectionState(1))

	// The re-authentication sends the source's current token.
	h.advance(900 * time.Millisecond)
	h.poll()
	hs, _ = h.sel.LastSent(1)
	h.sel.RespondTo(hs, &protocol.SaslHandshakeResponse{})
	h.poll()
	auth, _ = h.sel.LastSent(1)
	assert.Contains(t, string(auth.Body.(*protocol.SaslAuthenticateRequest).AuthBytes), "auth=Bearer tok-2\x01")
	h.sel.RespondTo(auth, &protocol.SaslAuthenticateResponse{})
	h.poll()
	assert.Equal(t, network.Ready, h.c.ConnectionState(1))
	assert.EqualValues(t, 1, h.c.Reauthentications())
}

// A refused token: the broker's JSON status is acknowledged with 0x01,
// and the failure shows the status and the token's claims, never the
// token.
func TestOAuthBearerRefused(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	src := &tokens{list: []network.OAuthBearerToken{{Value: "secret-token", Expiry: now.Add(-3 * time.Second),
		Claims: "sub=app aud=kafka scope=kafka exp=2027-01-15T07:59:57Z"}}}
	mech := network.OAuthBearerMechanism{Tokens: src, Now: func() time.Time { return now }}
	h, conn := saslHarnessCfg(t, reauthConfig(mech))
	hs, _ := h.sel.LastSent(1)
	h.sel.RespondTo(hs, &protocol.SaslHandshakeResponse{})
	h.poll()
	auth, _ := h.sel.LastSent(1)
	status := `{"status":"invalid_token","scope":"kafka"}`
	h.sel.RespondTo(auth, &protocol.SaslAuthenticateResponse{AuthBytes: []byte(status)})
	h.poll()
	ack, _ := h.sel.LastSent(1)
	require.Equal(t, protocol.KeySaslAuthenticate, ack.Header.APIKey)
	assert.Equal(t, []byte{1}, ack.Body.(*protocol.SaslAuthenticateRequest).AuthBytes)
	h.sel.RespondTo(ack, &protocol.SaslAuthenticateResponse{ErrorCode: protocol.ErrSaslAuthenticationFailed.Code, ErrorMessage: &status})
	h.poll()
	assertAuthFailed(t, h, conn, []error{protocol.ErrSaslAuthenticationFailed}, []string{
		"(broker status status=invalid_token scope=kafka; token claims sub=app aud=kafka scope=kafka exp=2027-01-15T07:59:57Z; the token expired 3s ago)",
	})
	assert.NotContains(t, h.c.AuthenticationError(1).Error(), "secret-token")
}

func TestOAuthBearerExtensionsChecked(t *testing.T) {
	for ext, want := range map[string]string{
		"auth":         `SASL extension name "auth"`,
		"bad-name":     `SASL extension name "bad-name"`,
		"logical1":     `SASL extension name "logical1"`,
		"goodName\x01": `SASL extension name`,
		"":             `SASL extension name ""`,
		"caf\u00e9":    `SASL extension name "café"`,
		"a[":           `SASL extension name "a["`,
	} {
		err := network.CheckOAuthBearerExtensions(map[string]string{ext: "v"})
		require.Error(t, err)
		assert.Contains(t, err.Error(), want)
	}
	assert.ErrorContains(t, network.CheckOAuthBearerExtensions(map[string]string{"k": "a\x01b"}), "control character")
	assert.NoError(t, network.CheckOAuthBearerExtensions(map[string]string{"logicalCluster": "lkc-1 x\ty"}))
}
