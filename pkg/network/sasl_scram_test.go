package network_test

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/xdg-go/scram"

	"github.com/kproduce/kproduce/pkg/network"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// scramVector is a published SCRAM exchange: the messages a client with a
// fixed nonce must produce and accept.
type scramVector struct {
	name                                               string
	hash                                               network.SCRAMHash
	user, pass, nonce                                  string
	clientFirst, serverFirst, clientFinal, serverFinal string
}

var scramVectors = []scramVector{
	{
		// RFC 7677, section 3.
		name: "RFC 7677 SCRAM-SHA-256", hash: network.SCRAMSHA256,
		user: "user", pass: "pencil", nonce: "rOprNGfwEbeRWgbNEkqO",
		clientFirst: "n,,n=user,r=rOprNGfwEbeRWgbNEkqO",
		serverFirst: "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",
		clientFinal: "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=",
		serverFinal: "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=",
	},
	{
		// The SHA-512 example of the xdg-go/scram test data.
		name: "SCRAM-SHA-512", hash: network.SCRAMSHA512,
		user: "user", pass: "pencil", nonce: "/uAp+YhRXyuq+1zS3YWsUsZHpxLfGkcQ",
		clientFirst: "n,,n=user,r=/uAp+YhRXyuq+1zS3YWsUsZHpxLfGkcQ",
		serverFirst: "r=/uAp+YhRXyuq+1zS3YWsUsZHpxLfGkcQ4FHzBxBhPzykjGStpoxdfs4Nyp1mtC9B,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=10000",
		clientFinal: "c=biws,r=/uAp+YhRXyuq+1zS3YWsUsZHpxLfGkcQ4FHzBxBhPzykjGStpoxdfs4Nyp1mtC9B," +
			"p=E2tqtuwJz5ShFuck1/KeqZKCmGZe/Lxjyr6fTZio21wZtlpgyeYLNxxQXrLuK/FfMSCanyDRmI1q5KL1Tj54nQ==",
		serverFinal: "v=qKOkLNGdt0VrlVkoL3kXjhWmI4SjEfqw8ogXgikzbPOMh6gloo8Mrboq/q3cz0/7hIvcQ1N9VL4m7iiSTTyolQ==",
	},
}

func fixedNonce(n string) func() string { return func() string { return n } }

func TestSCRAMVectors(t *testing.T) {
	for _, v := range scramVectors {
		t.Run(v.name, func(t *testing.T) {
			m := network.SCRAMMechanism{Hash: v.hash, Username: v.user, Password: v.pass, Nonce: fixedNonce(v.nonce)}
			s, err := m.NewSession(network.Node{})
			require.NoError(t, err)
			out, done, err := s.Step(nil)
			require.NoError(t, err)
			assert.False(t, done)
			assert.Equal(t, v.clientFirst, string(out))
			out, done, err = s.Step([]byte(v.serverFirst))
			require.NoError(t, err)
			assert.False(t, done, "the broker's signature is still to check")
			assert.Equal(t, v.clientFinal, string(out))
			out, done, err = s.Step([]byte(v.serverFinal))
			require.NoError(t, err)
			assert.True(t, done)
			assert.Nil(t, out)
			_, _, err = s.Step(nil)
			assert.Error(t, err, "an exchange runs once")
		})
	}
}

func TestSCRAMRejectsTheBroker(t *testing.T) {
	v := scramVectors[0]
	forged := "v=" + base64.StdEncoding.EncodeToString(make([]byte, 32))
	tests := []struct {
		name                     string
		serverFirst, serverFinal string
		text                     string
	}{
		{"nonce not extended", strings.Replace(v.serverFirst, "r=rOprNGfwEbeRWgbNEkqO", "r=other", 1), "", "nonce"},
		{"too few iterations", strings.Replace(v.serverFirst, "i=4096", "i=1000", 1), "", "too few iterations"},
		{"too many iterations", strings.Replace(v.serverFirst, "i=4096", "i=1000000", 1), "", "asks for 1000000 iterations, more than 16384"},
		{"bad iteration count", strings.Replace(v.serverFirst, "i=4096", "i=x", 1), "", "bad iteration count"},
		{"malformed server-first", "garbage", "", "server-first message"},
		{"forged signature", v.serverFirst, forged, "server-final message"},
		{"server error", v.serverFirst, "e=invalid-proof", "invalid-proof"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := network.SCRAMMechanism{Hash: v.hash, Username: v.user, Password: v.pass, Nonce: fixedNonce(v.nonce)}
			s, err := m.NewSession(network.Node{})
			require.NoError(t, err)
			_, _, err = s.Step(nil)
			require.NoError(t, err)
			_, _, err = s.Step([]byte(tt.serverFirst))
			if tt.serverFinal != "" {
				require.NoError(t, err)
				_, _, err = s.Step([]byte(tt.serverFinal))
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.text)
			assert.NotContains(t, err.Error(), v.pass)
		})
	}
}

// scramServer is xdg-go/scram's server side holding one user.
func scramServer(t *testing.T, hash scram.HashGeneratorFcn, user, pass string) *scram.Server {
	t.Helper()
	client, err := hash.NewClientUnprepped(user, pass, "")
	require.NoError(t, err)
	creds := client.GetStoredCredentials(scram.KeyFactors{Salt: "kproduce-salt", Iters: 4096})
	srv, err := hash.NewServer(func(name string) (scram.StoredCredentials, error) {
		if name != user {
			return scram.StoredCredentials{}, errors.New("unknown user")
		}
		return creds, nil
	})
	require.NoError(t, err)
	return srv
}

// converse runs mech against srv; it returns the client's error and
// whether the server accepted the client.
func converse(t *testing.T, mech network.SASLMechanism, srv *scram.Server) (clientErr error, serverValid bool) {
	t.Helper()
	s, err := mech.NewSession(network.Node{})
	require.NoError(t, err)
	conv := srv.NewConversation()
	var challenge []byte
	for range 4 {
		out, done, err := s.Step(challenge)
		if err != nil {
			return err, conv.Valid()
		}
		if out == nil && done {
			return nil, conv.Valid()
		}
		reply, err := conv.Step(string(out))
		if err != nil {
			return nil, false
		}
		challenge = []byte(reply)
	}
	t.Fatal("the exchange did not end")
	return nil, false
}

func TestSCRAMAgainstServer(t *testing.T) {
	// A user name with the characters SCRAM escapes, and a password that
	// SASLprep would change: Kafka uses both as given.
	const user, pass = "ka,fka=user", "p\u00e4ss\u00a0word"
	for _, hash := range []struct {
		h   network.SCRAMHash
		srv scram.HashGeneratorFcn
	}{{network.SCRAMSHA256, scram.SHA256}, {network.SCRAMSHA512, scram.SHA512}} {
		t.Run(network.SCRAMMechanism{Hash: hash.h}.Name(), func(t *testing.T) {
			srv := scramServer(t, hash.srv, user, pass)
			err, valid := converse(t, network.SCRAMMechanism{Hash: hash.h, Username: user, Password: pass}, srv)
			assert.NoError(t, err)
			assert.True(t, valid)

			_, valid = converse(t, network.SCRAMMechanism{Hash: hash.h, Username: user, Password: "wrong"}, srv)
			assert.False(t, valid, "a wrong password is refused")
			_, valid = converse(t, network.SCRAMMechanism{Hash: hash.h, Username: "other", Password: pass}, srv)
			assert.False(t, valid, "an unknown user is refused")
		})
	}
	// The other hash does not verify.
	srv := scramServer(t, scram.SHA512, user, pass)
	_, valid := converse(t, network.SCRAMMechanism{Hash: network.SCRAMSHA256, Username: user, Password: pass}, srv)
	assert.False(t, valid)
}

func TestNewSASLMechanism(t *testing.T) {
	tests := []struct {
		name, want string
	}{
		{"PLAIN", "PLAIN"}, {"plain", "PLAIN"}, {"scram-sha-256", "SCRAM-SHA-256"},
		{" SCRAM-SHA-512 ", "SCRAM-SHA-512"}, {"Scram-Sha-512", "SCRAM-SHA-512"},
	}
	for _, tt := range tests {
		m, err := network.NewSASLMechanism(tt.name, "u", "p")
		require.NoError(t, err, tt.name)
		assert.Equal(t, tt.want, m.Name())
		s, err := m.NewSession(network.Node{})
		require.NoError(t, err)
		out, _, err := s.Step(nil)
		require.NoError(t, err)
		assert.NotEmpty(t, out)
	}
	_, err := network.NewSASLMechanism("GSSAPI", "u", "secret")
	assert.ErrorIs(t, err, network.ErrUnknownSASLMechanism)
	assert.ErrorContains(t, err, "use NewGSSAPIMechanism")
	for _, bad := range []string{"OAUTHBEARER", "SCRAM-SHA-1", ""} {
		_, err := network.NewSASLMechanism(bad, "u", "secret")
		require.Error(t, err, bad)
		assert.ErrorIs(t, err, network.ErrUnknownSASLMechanism)
		assert.Contains(t, err.Error(), "want one of PLAIN, SCRAM-SHA-256, SCRAM-SHA-512")
		assert.NotContains(t, err.Error(), "secret")
	}
	_, err = network.NewSASLMechanism("PLAIN", "", "p")
	assert.ErrorContains(t, err, "empty user name")
	_, err = network.SCRAMMechanism{Hash: 9, Username: "u"}.NewSession(network.Node{})
	assert.Error(t, err)
	_, err = network.SCRAMMechanism{Hash: network.SCRAMSHA256}.NewSession(network.Node{})
	assert.ErrorContains(t, err, "empty user name")
}

// TestClientSCRAM drives the Client's SASL states with a SCRAM exchange
// answered by xdg-go/scram's server.
func TestClientSCRAM(t *testing.T) {
	for _, pass := range []string{"pencil", "wrong"} {
		t.Run(pass, func(t *testing.T) {
			srv := scramServer(t, scram.SHA512, "user", "pencil")
			conv := srv.NewConversation()
			h, conn := saslHarness(t, network.SCRAMMechanism{Hash: network.SCRAMSHA512, Username: "user", Password: pass})
			hs, _ := h.sel.LastSent(1)
			h.sel.RespondTo(hs, &protocol.SaslHandshakeResponse{Mechanisms: network.SASLMechanisms()})
			require.Empty(t, h.poll())
			for round := 0; round < 2; round++ {
				auth, _ := h.sel.LastSent(1)
				require.Equal(t, protocol.KeySaslAuthenticate, auth.Header.APIKey)
				require.Equal(t, network.Authenticating, h.c.ConnectionState(1))
				reply, err := conv.Step(string(auth.Body.(*protocol.SaslAuthenticateRequest).AuthBytes))
				if err != nil {
					msg := "Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512"
					h.sel.RespondTo(auth, &protocol.SaslAuthenticateResponse{ErrorCode: protocol.ErrSaslAuthenticationFailed.Code, ErrorMessage: &msg})
					require.Empty(t, h.poll())
					assertAuthFailed(t, h, conn, []error{protocol.ErrSaslAuthenticationFailed}, []string{"SASL SCRAM-SHA-512", "invalid credentials"})
					assert.NotContains(t, h.c.AuthenticationError(1).Error(), pass)
					require.Equal(t, "wrong", pass)
					return
				}
				h.sel.RespondTo(auth, &protocol.SaslAuthenticateResponse{AuthBytes: []byte(reply)})
				require.Empty(t, h.poll())
			}
			require.Equal(t, "pencil", pass)
			assert.True(t, conv.Valid())
			assert.Equal(t, network.Ready, h.c.ConnectionState(1))
			assert.Len(t, h.sel.SentKey(1, protocol.KeySaslAuthenticate), 2)
		})
	}
}
