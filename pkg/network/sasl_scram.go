package network

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/xdg-go/scram"
)

// SCRAMHash is the hash function of a SCRAM mechanism.
type SCRAMHash int8

// The SCRAM hash functions Kafka supports.
const (
	SCRAMSHA256 SCRAMHash = iota + 1 // SCRAM-SHA-256
	SCRAMSHA512                      // SCRAM-SHA-512
)

// The names of the SASL mechanisms kproduce supports, as sent in
// SaslHandshake.
const (
	MechanismPlain       = "PLAIN"
	MechanismSCRAMSHA256 = "SCRAM-SHA-256"
	MechanismSCRAMSHA512 = "SCRAM-SHA-512"
)

// maxSCRAMIterations bounds the PBKDF2 iterations a broker may ask for:
// Kafka stores SCRAM credentials with at most 16384, and a bound keeps a
// rogue peer from making the client spin.
const maxSCRAMIterations = 16384

// ErrUnknownSASLMechanism is wrapped by NewSASLMechanism's error for a
// mechanism kproduce does not implement.
var ErrUnknownSASLMechanism = errors.New("unknown SASL mechanism")

// SASLMechanisms returns the names of the mechanisms kproduce speaks:
// those NewSASLMechanism builds, and GSSAPI (NewGSSAPIMechanism).
func SASLMechanisms() []string {
	return []string{MechanismPlain, MechanismSCRAMSHA256, MechanismSCRAMSHA512, MechanismGSSAPI}
}

// NewSASLMechanism returns the mechanism called name (PLAIN, SCRAM-SHA-256
// or SCRAM-SHA-512, in any case) with the given credentials. An unknown
// name is an error wrapping ErrUnknownSASLMechanism that lists the known
// ones. The password never appears in an error.
func NewSASLMechanism(name, username, password string) (SASLMechanism, error) {
	if username == "" {
		return nil, errors.New("sasl: empty user name")
	}
	switch strings.ToUpper(strings.TrimSpace(name)) {
	case MechanismPlain:
		return PlainMechanism{Username: username, Password: password}, nil
	case MechanismSCRAMSHA256:
		return SCRAMMechanism{Hash: SCRAMSHA256, Username: username, Password: password}, nil
	case MechanismSCRAMSHA512:
		return SCRAMMechanism{Hash: SCRAMSHA512, Username: username, Password: password}, nil
	case MechanismGSSAPI:
		return nil, fmt.Errorf("%w: GSSAPI takes Kerberos credentials: use NewGSSAPIMechanism", ErrUnknownSASLMechanism)
	}
	return nil, fmt.Errorf("%w %q: want one of %s", ErrUnknownSASLMechanism, name, strings.Join(SASLMechanisms(), ", "))
}

// SCRAMMechanism is SASL SCRAM-SHA-256 or SCRAM-SHA-512 (RFC 5802, RFC
// 7677) as Kafka speaks it: the password never crosses the wire, and the
// broker proves it knows the credentials too. As in Kafka, the user name
// and password are used as given, without SASLprep.
type SCRAMMechanism struct {
	Hash     SCRAMHash
	Username string
	Password string
	// Nonce returns the client nonce (printable ASCII without ','); nil
	// means 24 random bytes from crypto/rand, base64-encoded.
	Nonce func() string
}

// Name returns "SCRAM-SHA-256" or "SCRAM-SHA-512".
func (m SCRAMMechanism) Name() string {
	switch m.Hash {
	case SCRAMSHA256:
		return MechanismSCRAMSHA256
	case SCRAMSHA512:
		return MechanismSCRAMSHA512
	}
	return "SCRAM-UNKNOWN-" + strconv.Itoa(int(m.Hash))
}

// NewSession starts a SCRAM exchange: client-first, client-final, then the
// check of the broker's signature.
func (m SCRAMMechanism) NewSession(Node) (SASLSession, error) {
	var hash scram.HashGeneratorFcn
	switch m.Hash {
	case SCRAMSHA256:
		hash = scram.SHA256
	case SCRAMSHA512:
		hash = scram.SHA512
	default:
		return nil, fmt.Errorf("sasl scram: unknown hash %d", m.Hash)
	}
	if m.Username == "" {
		return nil, errors.New("sasl scram: empty user name")
	}
	client, err := hash.NewClientUnprepped(m.Username, m.Password, "")
	if err != nil {
		return nil, fmt.Errorf("sasl scram: %w", err)
	}
	if m.Nonce != nil {
		client = client.WithNonceGenerator(m.Nonce)
	}
	return &scramSession{conv: client.NewConversation()}, nil
}

// scramSession is one SCRAM exchange.
type scramSession struct {
	conv *scram.ClientConversation
	step int
}

// Step sends client-first on the first call, answers server-first with
// client-final, and checks server-final.
func (s *scramSession) Step(challenge []byte) ([]byte, bool, error) {
	s.step++
	switch s.step {
	case 1:
		out, err := s.conv.Step("")
		if err != nil {
			return nil, false, fmt.Errorf("sasl scram: client-first message: %w", err)
		}
		return []byte(out), false, nil
	case 2:
		if err := checkIterations(challenge); err != nil {
			return nil, false, err
		}
		out, err := s.conv.Step(string(challenge))
		if err != nil {
			return nil, false, fmt.Errorf("sasl scram: server-first message: %w", err)
		}
		return []byte(out), false, nil
	case 3:
		if _, err := s.conv.Step(string(challenge)); err != nil {
			return nil, false, fmt.Errorf("sasl scram: server-final message: %w", err)
		}
		if !s.conv.Valid() {
			return nil, false, errors.New("sasl scram: the broker's signature does not verify")
		}
		return nil, true, nil
	}
	return nil, false, errors.New("sasl scram: exchange already complete")
}

// checkIterations rejects a server-first message asking for more PBKDF2
// iterations than maxSCRAMIterations (the library checks the minimum).
func checkIterations(serverFirst []byte) error {
	for _, attr := range strings.Split(string(serverFirst), ",") {
		v, ok := strings.CutPrefix(attr, "i=")
		if !ok {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			if len(v) > 16 {
				v = v[:16] + "..."
			}
			return fmt.Errorf("sasl scram: server-first message: bad iteration count %q", v)
		}
		if n > maxSCRAMIterations {
			return fmt.Errorf("sasl scram: the broker asks for %d iterations, more than %d", n, maxSCRAMIterations)
		}
	}
	return nil
}
