package network

import (
	"errors"
	"strings"
)

// PlainMechanism is SASL PLAIN (RFC 4616): the user name and password are
// sent in clear, so use it over TLS only.
type PlainMechanism struct {
	// AuthorizationID is optional; usually empty.
	AuthorizationID string
	Username        string
	Password        string
}

// Name returns "PLAIN".
func (PlainMechanism) Name() string { return "PLAIN" }

// NewSession returns a session that sends the credentials in one message.
func (m PlainMechanism) NewSession(Node) (SASLSession, error) {
	if m.Username == "" {
		return nil, errors.New("sasl plain: empty user name")
	}
	if strings.ContainsRune(m.AuthorizationID+m.Username+m.Password, 0) {
		return nil, errors.New("sasl plain: credentials contain a NUL byte")
	}
	return &plainSession{m: m}, nil
}

type plainSession struct {
	m    PlainMechanism
	sent bool
}

// Step sends authzid NUL user NUL password once.
func (s *plainSession) Step([]byte) ([]byte, bool, error) {
	if s.sent {
		return nil, true, nil
	}
	s.sent = true
	msg := make([]byte, 0, len(s.m.AuthorizationID)+len(s.m.Username)+len(s.m.Password)+2)
	msg = append(msg, s.m.AuthorizationID...)
	msg = append(msg, 0)
	msg = append(msg, s.m.Username...)
	msg = append(msg, 0)
	msg = append(msg, s.m.Password...)
	return msg, true, nil
}
