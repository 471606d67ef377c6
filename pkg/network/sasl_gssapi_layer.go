package network

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/jcmturner/gokrb5/v8/crypto"
	"github.com/jcmturner/gokrb5/v8/gssapi"
	"github.com/jcmturner/gokrb5/v8/iana/keyusage"
	"github.com/jcmturner/gokrb5/v8/messages"
)

// The flags of an RFC 4121 wrap token.
const (
	wrapSentByAcceptor = 0x01
	wrapSealed         = 0x02
	wrapAcceptorSubkey = 0x04
)

// The SASL GSSAPI security layers (RFC 4752 3.3): kproduce chooses none,
// as Kafka clients do.
const saslLayerNone = 0x01

// readAPReply reads the broker's answer to the AP-REQ: nothing (no mutual
// authentication asked), an AP-REP (its subkey then protects the wrap
// tokens) or a KRB-ERROR.
func (s *gssapiSession) readAPReply(challenge []byte) error {
	if len(challenge) == 0 {
		return nil
	}
	id, msg, err := parseGSSToken(challenge)
	if err != nil {
		return fmt.Errorf("the broker's answer to the Kerberos AP-REQ: %w", err)
	}
	switch {
	case bytes.Equal(id, tokenKRBError):
		var kerr messages.KRBError
		if err := kerr.Unmarshal(msg); err != nil {
			return fmt.Errorf("the broker refused the Kerberos ticket for %s with an error that cannot be read: %w", s.spn, err)
		}
		return fmt.Errorf("the broker refused the Kerberos ticket for %s: %s (%d): %s", s.spn, kdcErrorName(kerr), kerr.ErrorCode, kerr.EText)
	case !bytes.Equal(id, tokenAPRep):
		return fmt.Errorf("the broker's answer to the Kerberos AP-REQ is token %x, not an AP-REP", id)
	}
	var rep messages.APRep
	if err := rep.Unmarshal(msg); err != nil {
		return fmt.Errorf("the broker's AP-REP cannot be read: %w", err)
	}
	plain, err := crypto.DecryptEncPart(rep.EncPart, s.tkt.key, keyusage.AP_REP_ENCPART)
	if err != nil {
		return fmt.Errorf("%w: the broker's AP-REP does not decrypt with the ticket's key: is the broker %s?", ErrAuthentication, s.spn)
	}
	var part messages.EncAPRepPart
	if err := part.Unmarshal(plain); err != nil {
		return fmt.Errorf("the broker's AP-REP cannot be read: %w", err)
	}
	if !part.CTime.Equal(s.ctime) || part.Cusec != s.cusec {
		return fmt.Errorf("%w: the broker's AP-REP does not answer this AP-REQ", ErrAuthentication)
	}
	if len(part.Subkey.KeyValue) > 0 {
		s.key, s.acceptorSubkey = part.Subkey, true
	}
	return nil
}

// securityLayer reads the broker's offer of security layers (a wrap token
// holding the layers bit mask and its largest message size) and answers
// with no security layer and no authorisation id.
func (s *gssapiSession) securityLayer(challenge []byte) ([]byte, error) {
	offer, err := unwrapToken(challenge, true)
	if err != nil {
		return nil, fmt.Errorf("the broker's security-layer message: %w", err)
	}
	if ok, err := offer.Verify(s.key, keyusage.GSSAPI_ACCEPTOR_SEAL); !ok {
		return nil, fmt.Errorf("%w: the broker's security-layer message does not verify with the session's key (is the broker %s?): %v",
			ErrAuthentication, s.spn, err)
	}
	if len(offer.Payload) != 4 {
		return nil, fmt.Errorf("the broker's security-layer message holds %d bytes, not 4", len(offer.Payload))
	}
	if offer.Payload[0]&saslLayerNone == 0 {
		return nil, fmt.Errorf("the broker offers only SASL security layers (mask %#x) and not 'none', which Kafka uses", offer.Payload[0])
	}
	etype, err := crypto.GetEtype(s.key.KeyType)
	if err != nil {
		return nil, fmt.Errorf("kerberos: %w", err)
	}
	var flags byte
	if s.acceptorSubkey {
		flags |= wrapAcceptorSubkey
	}
	answer := gssapi.WrapToken{Flags: flags, EC: uint16(etype.GetHMACBitLength() / 8), SndSeqNum: uint64(s.seq),
		Payload: []byte{saslLayerNone, 0, 0, 0}}
	if err := answer.SetCheckSum(s.key, keyusage.GSSAPI_INITIATOR_SEAL); err != nil {
		return nil, fmt.Errorf("kerberos: wrap token: %w", err)
	}
	return answer.Marshal()
}

// unwrapToken reads an unsealed RFC 4121 wrap token, undoing a right
// rotation (RRC) of its data; fromAcceptor says who must have sent it.
func unwrapToken(b []byte, fromAcceptor bool) (*gssapi.WrapToken, error) {
	if len(b) < gssapi.HdrLen {
		return nil, errors.New("shorter than a wrap token")
	}
	if b[2]&wrapSealed != 0 {
		return nil, errors.New("a sealed (encrypted) wrap token: the security layer is negotiated in the clear")
	}
	data := bytes.Clone(b)
	if rrc := int(binary.BigEndian.Uint16(data[6:8])); rrc > 0 && len(data) > gssapi.HdrLen {
		body := data[gssapi.HdrLen:]
		r := rrc % len(body)
		rotated := append(bytes.Clone(body[r:]), body[:r]...)
		copy(body, rotated)
		binary.BigEndian.PutUint16(data[6:8], 0)
	}
	var wt gssapi.WrapToken
	if err := wt.Unmarshal(data, fromAcceptor); err != nil {
		return nil, err
	}
	return &wt, nil
}
