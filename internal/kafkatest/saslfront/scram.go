package saslfront

import (
	"errors"
	"fmt"

	"github.com/xdg-go/scram"
)

// SCRAM is SCRAM-SHA-256 (sha512 false) or SCRAM-SHA-512 against a table
// of user names and passwords, as Kafka stores them (4096 iterations).
func SCRAM(sha512 bool, users map[string]string) Mechanism {
	m := scramMechanism{name: "SCRAM-SHA-256", hash: scram.SHA256, users: users}
	if sha512 {
		m.name, m.hash = "SCRAM-SHA-512", scram.SHA512
	}
	return m
}

type scramMechanism struct {
	name  string
	hash  scram.HashGeneratorFcn
	users map[string]string
}

func (m scramMechanism) Name() string { return m.name }

func (m scramMechanism) Start(ConnInfo) Exchange {
	server, err := m.hash.NewServer(func(user string) (scram.StoredCredentials, error) {
		pass, ok := m.users[user]
		if !ok {
			return scram.StoredCredentials{}, errors.New("unknown user")
		}
		client, err := m.hash.NewClientUnprepped(user, pass, "")
		if err != nil {
			return scram.StoredCredentials{}, err
		}
		return client.GetStoredCredentials(scram.KeyFactors{Salt: "kproduce-test-salt", Iters: 4096}), nil
	})
	return &scramExchange{name: m.name, server: server, err: err}
}

type scramExchange struct {
	name   string
	server *scram.Server
	err    error
	conv   *scram.ServerConversation
}

// Step runs the server side of the conversation: server-first, then
// server-final once the client's proof checks.
func (e *scramExchange) Step(msg []byte) ([]byte, bool, error) {
	if e.err != nil {
		return nil, false, e.err
	}
	if e.conv == nil {
		e.conv = e.server.NewConversation()
	}
	out, err := e.conv.Step(string(msg))
	if err != nil || (e.conv.Done() && !e.conv.Valid()) {
		return nil, false, fmt.Errorf("Authentication failed during authentication due to invalid credentials with SASL mechanism %s", e.name)
	}
	return []byte(out), e.conv.Done(), nil
}

// Principal is the user name.
func (e *scramExchange) Principal() string {
	if e.conv == nil {
		return ""
	}
	return e.conv.Username()
}
