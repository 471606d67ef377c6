package network_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/network"
	"github.com/kproduce/kproduce/pkg/network/networktest"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// challengeMechanism is a two-round mechanism: it sends "first", expects
// the challenge "server-first", sends "final", then expects "server-final".
type challengeMechanism struct{ nodes *[]network.Node }

func (challengeMechanism) Name() string { return "TEST-2ROUND" }

func (m challengeMechanism) NewSession(n network.Node) (network.SASLSession, error) {
	*m.nodes = append(*m.nodes, n)
	return &challengeSession{}, nil
}

type challengeSession struct{ step int }

func (s *challengeSession) Step(challenge []byte) ([]byte, bool, error) {
	s.step++
	switch s.step {
	case 1:
		if challenge != nil {
			return nil, false, errors.New("first challenge must be nil")
		}
		return []byte("first"), false, nil
	case 2:
		if string(challenge) != "server-first" {
			return nil, false, fmt.Errorf("unexpected challenge %q", challenge)
		}
		return []byte("final"), false, nil
	case 3:
		if string(challenge) != "server-final" {
			return nil, false, fmt.Errorf("server signature %q does not verify", challenge)
		}
		return nil, true, nil
	}
	return nil, false, errors.New("too many steps")
}

// saslHarness connects node 1 up to the SaslHandshake.
func saslHarness(t *testing.T, mech network.SASLMechanism) (*harness, network.ConnID) {
	t.Helper()
	cfg := baseConfig()
	cfg.SASL = mech
	h := newHarness(t, cfg, testNodes()...)
	require.False(t, h.c.Ready(1, h.now()))
	conn, _ := h.sel.LastConn(1)
	h.sel.CompleteConnect(conn)
	h.poll()
	sent, _ := h.sel.LastSent(1)
	h.sel.RespondTo(sent, networktest.DefaultApiVersions())
	require.Empty(t, h.poll())
	require.Equal(t, network.Authenticating, h.c.ConnectionState(1))
	assert.False(t, h.c.IsReady(1, h.now()))
	hs, _ := h.sel.LastSent(1)
	require.Equal(t, protocol.KeySaslHandshake, hs.Header.APIKey)
	assert.Equal(t, int16(1), hs.Header.APIVersion)
	assert.Equal(t, &protocol.SaslHandshakeRequest{Mechanism: mech.Name()}, hs.Body)
	return h, conn
}

func TestSASLPlain(t *testing.T) {
	h, _ := saslHarness(t, network.PlainMechanism{Username: "u", Password: "p"})
	hs, _ := h.sel.LastSent(1)
	h.sel.RespondTo(hs, &protocol.SaslHandshakeResponse{Mechanisms: []string{"PLAIN"}})
	require.Empty(t, h.poll())
	auth, _ := h.sel.LastSent(1)
	require.Equal(t, protocol.KeySaslAuthenticate, auth.Header.APIKey)
	assert.Equal(t, int16(2), auth.Header.APIVersion)
	assert.Equal(t, []byte("\x00u\x00p"), auth.Body.(*protocol.SaslAuthenticateRequest).AuthBytes)
	assert.Equal(t, network.Authenticating, h.c.ConnectionState(1))

	h.sel.RespondTo(auth, &protocol.SaslAuthenticateResponse{AuthBytes: []byte{}})
	require.Empty(t, h.poll())
	assert.Equal(t, network.Ready, h.c.ConnectionState(1))
	assert.True(t, h.c.IsReady(1, h.now()))
	assert.NoError(t, h.c.AuthenticationError(1))
}

func TestSASLMultiRound(t *testing.T) {
	var nodes []network.Node
	h, _ := saslHarness(t, challengeMechanism{nodes: &nodes})
	hs, _ := h.sel.LastSent(1)
	h.sel.RespondTo(hs, &protocol.SaslHandshakeResponse{Mechanisms: []string{"TEST-2ROUND"}})
	h.poll()
	require.Equal(t, []network.Node{testNodes()[0]}, nodes, "the session is for the node")

	for _, round := range []struct{ sent, challenge string }{{"first", "server-first"}, {"final", "server-final"}} {
		auth, _ := h.sel.LastSent(1)
		require.Equal(t, protocol.KeySaslAuthenticate, auth.Header.APIKey)
		assert.Equal(t, round.sent, string(auth.Body.(*protocol.SaslAuthenticateRequest).AuthBytes))
		require.Equal(t, network.Authenticating, h.c.ConnectionState(1))
		h.sel.RespondTo(auth, &protocol.SaslAuthenticateResponse{AuthBytes: []byte(round.challenge)})
		require.Empty(t, h.poll())
	}
	assert.Equal(t, network.Ready, h.c.ConnectionState(1))
	assert.Len(t, h.sel.SentKey(1, protocol.KeySaslAuthenticate), 2)
}

func TestSASLFailures(t *testing.T) {
	message := "Authentication failed: Invalid username or password"
	tests := []struct {
		name string
		// act makes the broker fail the authentication of conn.
		act  func(h *harness, conn network.ConnID)
		is   []error
		text []string
	}{
		{
			name: "mechanism not enabled",
			act: func(h *harness, conn network.ConnID) {
				hs, _ := h.sel.LastSent(1)
				h.sel.RespondTo(hs, &protocol.SaslHandshakeResponse{
					ErrorCode: protocol.ErrUnsupportedSaslMechanism.Code, Mechanisms: []string{"SCRAM-SHA-256", "SCRAM-SHA-512"},
				})
			},
			is:   []error{protocol.ErrUnsupportedSaslMechanism},
			text: []string{"broker 1 (127.0.0.1:9091)", "does not enable SASL mechanism PLAIN", "it offers SCRAM-SHA-256, SCRAM-SHA-512"},
		},
		{
			name: "wrong password answered with an error",
			act: func(h *harness, conn network.ConnID) {
				hs, _ := h.sel.LastSent(1)
				h.sel.RespondTo(hs, &protocol.SaslHandshakeResponse{Mechanisms: []string{"PLAIN"}})
				h.poll()
				auth, _ := h.sel.LastSent(1)
				h.sel.RespondTo(auth, &protocol.SaslAuthenticateResponse{
					ErrorCode: protocol.ErrSaslAuthenticationFailed.Code, ErrorMessage: &message,
				})
			},
			is:   []error{protocol.ErrSaslAuthenticationFailed},
			text: []string{message},
		},
		{
			name: "broker closes the connection during authentication",
			act: func(h *harness, conn network.ConnID) {
				hs, _ := h.sel.LastSent(1)
				h.sel.RespondTo(hs, &protocol.SaslHandshakeResponse{Mechanisms: []string{"PLAIN"}})
				h.poll()
				h.sel.Disconnect(conn, io.EOF)
			},
			is:   []error{io.EOF},
			text: []string{"the broker closed the connection during SASL authentication"},
		},
		{
			name: "handshake fails otherwise",
			act: func(h *harness, conn network.ConnID) {
				hs, _ := h.sel.LastSent(1)
				h.sel.RespondTo(hs, &protocol.SaslHandshakeResponse{ErrorCode: protocol.ErrIllegalSaslState.Code})
			},
			is: []error{protocol.ErrIllegalSaslState},
		},
		{
			name: "malformed response",
			act: func(h *harness, conn network.ConnID) {
				hs, _ := h.sel.LastSent(1)
				payload := networktest.EncodeResponse(hs.Header.CorrelationID, protocol.KeySaslHandshake, 1,
					&protocol.SaslHandshakeResponse{Mechanisms: []string{"PLAIN"}})
				h.sel.Receive(conn, payload[:len(payload)-2])
			},
			is: []error{protocol.ErrShortBuffer},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, conn := saslHarness(t, network.PlainMechanism{Username: "u", Password: "p"})
			tt.act(h, conn)
			require.Empty(t, h.poll())
			assertAuthFailed(t, h, conn, tt.is, tt.text)
		})
	}
}

func TestSASLSessionErrors(t *testing.T) {
	t.Run("new session fails", func(t *testing.T) {
		h, conn := saslHarness(t, network.PlainMechanism{})
		hs, _ := h.sel.LastSent(1)
		h.sel.RespondTo(hs, &protocol.SaslHandshakeResponse{Mechanisms: []string{"PLAIN"}})
		require.Empty(t, h.poll())
		assertAuthFailed(t, h, conn, nil, []string{"sasl plain: empty user name"})
	})
	t.Run("server challenge does not verify", func(t *testing.T) {
		var nodes []network.Node
		h, conn := saslHarness(t, challengeMechanism{nodes: &nodes})
		hs, _ := h.sel.LastSent(1)
		h.sel.RespondTo(hs, &protocol.SaslHandshakeResponse{})
		h.poll()
		auth, _ := h.sel.LastSent(1)
		h.sel.RespondTo(auth, &protocol.SaslAuthenticateResponse{AuthBytes: []byte("forged")})
		require.Empty(t, h.poll())
		assertAuthFailed(t, h, conn, nil, []string{`unexpected challenge "forged"`})
	})
	t.Run("broker without SaslHandshake", func(t *testing.T) {
		cfg := baseConfig()
		cfg.SASL = network.PlainMechanism{Username: "u"}
		h := newHarness(t, cfg, testNodes()...)
		require.False(t, h.c.Ready(1, h.now()))
		conn, _ := h.sel.LastConn(1)
		h.sel.CompleteConnect(conn)
		h.poll()
		sent, _ := h.sel.LastSent(1)
		h.sel.RespondTo(sent, versionsWith(protocol.KeySaslHandshake, 0, -1))
		require.Empty(t, h.poll())
		assertAuthFailed(t, h, conn, []error{network.ErrUnsupportedVersion}, []string{"SaslHandshake"})
	})
}

// assertAuthFailed checks node 1 failed authentication for good.
func assertAuthFailed(t *testing.T, h *harness, conn network.ConnID, is []error, text []string) {
	t.Helper()
	assert.True(t, h.sel.IsClosed(conn))
	assert.Equal(t, network.AuthenticationFailed, h.c.ConnectionState(1))
	assert.True(t, h.c.ConnectionFailed(1))
	err := h.c.AuthenticationError(1)
	require.Error(t, err)
	assert.ErrorIs(t, err, network.ErrAuthentication)
	for _, target := range is {
		assert.ErrorIs(t, err, target)
	}
	for _, s := range text {
		assert.Contains(t, err.Error(), s)
	}
	assert.True(t, bytes.HasPrefix([]byte(err.Error()), []byte("broker 1 (127.0.0.1:9091): authentication failed")), err.Error())
	assert.ErrorIs(t, h.md.LastError(), network.ErrAuthentication, "the metadata reports it too")

	// Final: the node is never retried.
	connects := len(connectsTo(h.sel, 1))
	h.advance(time.Hour)
	assert.False(t, h.c.Ready(1, h.now()))
	h.poll()
	assert.Len(t, connectsTo(h.sel, 1), connects)
}

// A broker whose ApiVersions lists no SaslHandshake has no SASL on this
// listener: the failure says so, naming the broker once.
func TestSASLNotOffered(t *testing.T) {
	cfg := baseConfig()
	cfg.SASL = network.PlainMechanism{Username: "u", Password: "p"}
	h := newHarness(t, cfg, testNodes()...)
	require.False(t, h.c.Ready(1, h.now()))
	conn, _ := h.sel.LastConn(1)
	h.sel.CompleteConnect(conn)
	h.poll()
	sent, _ := h.sel.LastSent(1)
	h.sel.RespondTo(sent, versionsWith(protocol.KeySaslHandshake, 0, -1))
	h.poll()
	require.Equal(t, network.AuthenticationFailed, h.c.ConnectionState(1))
	err := h.c.AuthenticationError(1)
	assert.ErrorIs(t, err, network.ErrAuthentication)
	assert.Equal(t, "broker 1 (127.0.0.1:9091): authentication failed: SASL PLAIN: the broker does not offer SASL"+
		" (no SaslHandshake in its ApiVersions; is this listener without SASL? try without --sasl-mechanism):"+
		" unsupported api version: the broker does not support SaslHandshake (kproduce speaks v1-v1)", err.Error())
}
