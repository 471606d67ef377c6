package saslfront

import (
	"bytes"
	"errors"
)

// Plain is SASL PLAIN against a table of user names and passwords.
func Plain(users map[string]string) Mechanism { return plainMechanism{users: users} }

type plainMechanism struct{ users map[string]string }

func (plainMechanism) Name() string { return "PLAIN" }

func (m plainMechanism) Start(ConnInfo) Exchange { return &plainExchange{users: m.users} }

type plainExchange struct {
	users map[string]string
	user  string
}

// Step checks authzid NUL user NUL password.
func (e *plainExchange) Step(msg []byte) ([]byte, bool, error) {
	parts := bytes.Split(msg, []byte{0})
	if len(parts) != 3 {
		return nil, false, errors.New("Authentication failed: invalid PLAIN message")
	}
	authzid, user, pass := string(parts[0]), string(parts[1]), string(parts[2])
	want, ok := e.users[user]
	if !ok || want != pass || (authzid != "" && authzid != user) {
		return nil, false, errors.New("Authentication failed: Invalid username or password")
	}
	e.user = user
	return nil, true, nil
}

// Principal is the user name.
func (e *plainExchange) Principal() string { return e.user }
