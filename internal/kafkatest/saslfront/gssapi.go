package saslfront

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jcmturner/gofork/encoding/asn1"
	"github.com/jcmturner/gokrb5/v8/asn1tools"
	"github.com/jcmturner/gokrb5/v8/crypto"
	"github.com/jcmturner/gokrb5/v8/gssapi"
	"github.com/jcmturner/gokrb5/v8/iana/asnAppTag"
	"github.com/jcmturner/gokrb5/v8/iana/flags"
	"github.com/jcmturner/gokrb5/v8/iana/keyusage"
	"github.com/jcmturner/gokrb5/v8/iana/msgtype"
	"github.com/jcmturner/gokrb5/v8/keytab"
	"github.com/jcmturner/gokrb5/v8/messages"
	"github.com/jcmturner/gokrb5/v8/service"
	"github.com/jcmturner/gokrb5/v8/types"
)

// GSSAPIConfig configures the GSSAPI mechanism.
type GSSAPIConfig struct {
	// Keytab holds the key of the service principal.
	Keytab *keytab.Keytab
	// ServiceName is the first part of the service principal
	// SERVICE/HOST@REALM; "" means "kafka".
	ServiceName string
	// Host is the service principal's host; "" means the host the client
	// connected to (ConnInfo.LocalHost), as each broker has its own.
	Host string
	// MaxClockSkew bounds the difference between the client's clock and
	// ours; 0 means 5 minutes.
	MaxClockSkew time.Duration
}

// GSSAPI is SASL GSSAPI (RFC 4752) with Kerberos 5 (RFC 4121) as Kafka
// brokers speak it: the client's GSS-API initial context token carries an
// AP-REQ, verified with the service keytab by gokrb5's acceptor (the
// ticket decrypted with the service key, the authenticator, clock skew,
// replay). Then, as Java's GssKrb5Server does: when the client asks for
// mutual authentication (MIT's GSS-API does), the answer is an AP-REP and
// the client's next message must be empty; the front then offers the
// security layers in a wrap token (none only, as Kafka) - at once when
// the client does not ask for mutual authentication (the Java client,
// franz-go). The client's wrap token must choose none.
func GSSAPI(cfg GSSAPIConfig) Mechanism {
	if cfg.ServiceName == "" {
		cfg.ServiceName = "kafka"
	}
	if cfg.MaxClockSkew == 0 {
		cfg.MaxClockSkew = 5 * time.Minute
	}
	return gssapiMechanism{cfg: cfg}
}

type gssapiMechanism struct{ cfg GSSAPIConfig }

func (gssapiMechanism) Name() string { return "GSSAPI" }

func (m gssapiMechanism) Start(info ConnInfo) Exchange {
	host := m.cfg.Host
	if host == "" {
		host = info.LocalHost()
	}
	return &gssapiExchange{cfg: m.cfg, spn: m.cfg.ServiceName + "/" + strings.ToLower(host)}
}

// gssapiExchange is one GSSAPI authentication.
type gssapiExchange struct {
	cfg       GSSAPIConfig
	spn       string // SERVICE/HOST, without the realm
	step      int
	mutual    bool
	principal string
	key       types.EncryptionKey // protects the wrap tokens
	seq       uint64              // our sequence number
}

// The SASL GSSAPI security layer "none" (RFC 4752 3.3).
const layerNone = 0x01

// Step runs the exchange.
func (e *gssapiExchange) Step(msg []byte) ([]byte, bool, error) {
	e.step++
	switch {
	case e.step == 1:
		out, err := e.acceptAPReq(msg)
		if err != nil || e.mutual {
			return out, false, err
		}
		e.step++ // no AP-REP: the security layers at once
		out, err = e.offerLayers()
		return out, false, err
	case e.step == 2:
		if len(msg) != 0 {
			return nil, false, errors.New("GSSAPI: expected an empty message after the AP-REP")
		}
		out, err := e.offerLayers()
		return out, false, err
	case e.step == 3:
		return nil, true, e.checkLayerChoice(msg)
	}
	return nil, false, errors.New("GSSAPI: the exchange is over")
}

// acceptAPReq verifies the initial context token and returns the AP-REP
// token when the client asks for mutual authentication.
func (e *gssapiExchange) acceptAPReq(msg []byte) ([]byte, error) {
	id, body, err := parseToken(msg)
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(id, []byte{0x01, 0x00}) {
		return nil, fmt.Errorf("GSSAPI: expected an AP-REQ token, got token id %x", id)
	}
	var req messages.APReq
	if err := req.Unmarshal(body); err != nil {
		return nil, fmt.Errorf("GSSAPI: malformed AP-REQ: %v", err)
	}
	if got := req.Ticket.SName.PrincipalNameString(); got != e.spn {
		return nil, fmt.Errorf("GSSAPI: the ticket is for %s, this broker is %s", got, e.spn)
	}
	settings := service.NewSettings(e.cfg.Keytab, service.MaxClockSkew(e.cfg.MaxClockSkew), service.DecodePAC(false))
	ok, creds, err := service.VerifyAPREQ(&req, settings)
	if err != nil || !ok {
		return nil, fmt.Errorf("GSSAPI: the AP-REQ does not verify: %v", err)
	}
	e.principal = creds.CName().PrincipalNameString() + "@" + creds.Realm()
	e.key = req.Ticket.DecryptedEncPart.Key
	if len(req.Authenticator.SubKey.KeyValue) > 0 {
		e.key = req.Authenticator.SubKey
	}
	e.seq = uint64(req.Authenticator.SeqNumber)
	if e.mutual = mutualRequested(req); !e.mutual {
		return nil, nil
	}
	return e.apRep(req)
}

// mutualRequested reports whether the client asks for the AP-REP: the
// AP option or the GSS checksum's mutual flag.
func mutualRequested(req messages.APReq) bool {
	if types.IsFlagSet(&req.APOptions, flags.APOptionMutualRequired) {
		return true
	}
	c := req.Authenticator.Cksum.Checksum
	return len(c) >= 24 && binary.LittleEndian.Uint32(c[20:24])&uint32(gssapi.ContextFlagMutual) != 0
}

// apRep is the AP-REP token answering req (no subkey of ours: the wrap
// tokens use the client's).
func (e *gssapiExchange) apRep(req messages.APReq) ([]byte, error) {
	part := messages.EncAPRepPart{CTime: req.Authenticator.CTime, Cusec: req.Authenticator.Cusec, SequenceNumber: int64(e.seq)}
	b, err := asn1.Marshal(part)
	if err != nil {
		return nil, err
	}
	b = asn1tools.AddASNAppTag(b, asnAppTag.EncAPRepPart)
	enc, err := crypto.GetEncryptedData(b, req.Ticket.DecryptedEncPart.Key, keyusage.AP_REP_ENCPART, 0)
	if err != nil {
		return nil, err
	}
	rep, err := asn1.Marshal(messages.APRep{PVNO: 5, MsgType: msgtype.KRB_AP_REP, EncPart: enc})
	if err != nil {
		return nil, err
	}
	return frameToken([]byte{0x02, 0x00}, asn1tools.AddASNAppTag(rep, asnAppTag.APREP)), nil
}

// offerLayers is the wrap token offering the security layer none, with a
// 64 KiB largest message, as Kafka's broker (Java's GssKrb5Server).
func (e *gssapiExchange) offerLayers() ([]byte, error) {
	etype, err := crypto.GetEtype(e.key.KeyType)
	if err != nil {
		return nil, err
	}
	wt := gssapi.WrapToken{Flags: 0x01, EC: uint16(etype.GetHMACBitLength() / 8), SndSeqNum: e.seq,
		Payload: []byte{layerNone, 0x01, 0x00, 0x00}}
	if err := wt.SetCheckSum(e.key, keyusage.GSSAPI_ACCEPTOR_SEAL); err != nil {
		return nil, err
	}
	return wt.Marshal()
}

// checkLayerChoice verifies the client's wrap token and its choice.
func (e *gssapiExchange) checkLayerChoice(msg []byte) error {
	if len(msg) < gssapi.HdrLen || msg[2]&0x02 != 0 {
		return errors.New("GSSAPI: expected an unsealed wrap token choosing the security layer")
	}
	data := bytes.Clone(msg)
	if rrc := int(binary.BigEndian.Uint16(data[6:8])); rrc > 0 && len(data) > gssapi.HdrLen {
		body := data[gssapi.HdrLen:]
		r := rrc % len(body)
		copy(body, append(bytes.Clone(body[r:]), body[:r]...))
		binary.BigEndian.PutUint16(data[6:8], 0)
	}
	var wt gssapi.WrapToken
	if err := wt.Unmarshal(data, false); err != nil {
		return fmt.Errorf("GSSAPI: the security layer token: %v", err)
	}
	if ok, err := wt.Verify(e.key, keyusage.GSSAPI_INITIATOR_SEAL); !ok {
		return fmt.Errorf("GSSAPI: the security layer token does not verify: %v", err)
	}
	if len(wt.Payload) < 4 || wt.Payload[0] != layerNone {
		return fmt.Errorf("GSSAPI: the client must choose the security layer none, not %x", wt.Payload)
	}
	name, _, _ := strings.Cut(e.principal, "@")
	if authzid := string(wt.Payload[4:]); authzid != "" && authzid != e.principal && authzid != name {
		return fmt.Errorf("GSSAPI: %s may not act as %s", e.principal, authzid)
	}
	return nil
}

// Principal is the client principal, name@REALM.
func (e *gssapiExchange) Principal() string { return e.principal }

// kerberosOID is the DER encoding of the Kerberos 5 GSS-API mechanism.
var kerberosOID = []byte{0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x12, 0x01, 0x02, 0x02}

// parseToken reads a GSS-API token of the Kerberos mechanism.
func parseToken(b []byte) (id, body []byte, err error) {
	var raw asn1.RawValue
	rest, err := asn1.Unmarshal(b, &raw)
	if err != nil || len(rest) > 0 || raw.Class != asn1.ClassApplication || raw.Tag != 0 {
		return nil, nil, errors.New("GSSAPI: not a GSS-API initial context token")
	}
	in := raw.Bytes
	if len(in) < len(kerberosOID)+2 || !bytes.Equal(in[:len(kerberosOID)], kerberosOID) {
		return nil, nil, errors.New("GSSAPI: not a Kerberos 5 token")
	}
	return in[len(kerberosOID) : len(kerberosOID)+2], in[len(kerberosOID)+2:], nil
}

// frameToken frames a Kerberos message as a GSS-API token.
func frameToken(id, msg []byte) []byte {
	inner := append(append(append([]byte{}, kerberosOID...), id...), msg...)
	out := asn1tools.AddASNAppTag(inner, 0)
	return out
}
