package network

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/jcmturner/gofork/encoding/asn1"
	"github.com/jcmturner/gokrb5/v8/crypto"
	"github.com/jcmturner/gokrb5/v8/gssapi"
	"github.com/jcmturner/gokrb5/v8/iana/chksumtype"
	"github.com/jcmturner/gokrb5/v8/iana/nametype"
	"github.com/jcmturner/gokrb5/v8/messages"
	"github.com/jcmturner/gokrb5/v8/types"
)

// MechanismGSSAPI is the name of SASL GSSAPI (Kerberos) in SaslHandshake.
const MechanismGSSAPI = "GSSAPI"

// GSSAPIConfig configures SASL GSSAPI. Paths are used as given: the
// caller resolves KRB5_CONFIG, KRB5CCNAME and their defaults.
type GSSAPIConfig struct {
	// ServiceName is the first part of the brokers' service principal
	// SERVICE/BROKER-HOST@REALM; "" means "kafka".
	ServiceName string
	// Principal is the client principal, name@REALM; "" means the
	// keytab's first principal, or the ticket cache's.
	Principal string
	// KeytabFile logs in with the keytab's key; "" means the ticket cache.
	KeytabFile string
	// CCacheFile is the ticket cache (a FILE: cache, after kinit) used
	// when there is no keytab.
	CCacheFile string
	// ConfigFile is krb5.conf: the default realm and the realms' KDCs.
	ConfigFile string
	// Timeout bounds the KDC exchanges of one session start (the login
	// and the service ticket); 0 means 10s.
	Timeout time.Duration
	// MinTimeBeforeRelogin is the shortest time between two logins while
	// the ticket is still valid; 0 means one minute.
	MinTimeBeforeRelogin time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Dial connects to a KDC; nil means a net.Dialer.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
}

// GSSAPIMechanism is SASL GSSAPI (RFC 4752) with Kerberos 5 (RFC 4121)
// as Kafka brokers speak it: the GSS-API initial context token with the
// AP-REQ, the broker's reply, then the security-layer negotiation in wrap
// tokens, choosing no security layer. It logs in itself (no kinit
// needed) with a keytab, or uses the ticket cache of a kinit; tickets are
// renewed or obtained again as they near their end, in the background
// while a Client uses it (it is a SASLPreparer), and a broker's service
// ticket is obtained in the background while its connection waits (it is
// a SASLSessionStarter). Safe for concurrent use.
type GSSAPIMechanism struct {
	service string
	timeout time.Duration
	now     func() time.Time
	login   *kerberosLogin
	refresh ticketRefresher
	fetches ticketFetches
}

// NewGSSAPIMechanism reads krb5.conf and the keytab or the ticket cache.
// Its errors wrap ErrKerberosConfig, ErrKerberosNoCredentials or
// ErrKerberosTicketExpired and say what to do; nothing is sent to a KDC
// before the first session.
func NewGSSAPIMechanism(cfg GSSAPIConfig) (*GSSAPIMechanism, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Dial == nil {
		cfg.Dial = defaultDialer
	}
	m := &GSSAPIMechanism{service: cmpOr(cfg.ServiceName, "kafka"), timeout: cmpOr(cfg.Timeout, 10*time.Second), now: cfg.Now}
	krb5, err := loadKrb5Conf(cfg.ConfigFile)
	if err != nil {
		return nil, err
	}
	l := &kerberosLogin{cfg: krb5, now: cfg.Now, minRelogin: cmpOr(cfg.MinTimeBeforeRelogin, time.Minute), ccache: cfg.CCacheFile,
		turn: make(chan struct{}, 1), services: map[string]*kerberosTicket{},
		transport: &kdcTransport{kdcs: realmKDCs(krb5), dial: cfg.Dial}}
	if cfg.KeytabFile != "" {
		l.keytab, l.cname, l.realm, err = loadKeytab(cfg.KeytabFile, cfg.Principal, krb5.LibDefaults.DefaultRealm)
		if err != nil {
			return nil, err
		}
		m.login = l
		return m, nil
	}
	if err := l.useCCache(cfg.Principal); err != nil {
		return nil, err
	}
	m.login = l
	return m, nil
}

// useCCache takes the TGT of the ticket cache, which must be the
// principal's (when one is given) and not expired.
func (l *kerberosLogin) useCCache(principal string) error {
	if l.ccache == "" {
		return fmt.Errorf("%w: no keytab and no ticket cache given: run kinit, or give --kerberos-keytab", ErrKerberosNoCredentials)
	}
	tgt, cname, realm, err := readCCacheTGT(l.ccache)
	if err != nil {
		return err
	}
	l.cname, l.realm = cname, realm
	if principal != "" {
		want, wantRealm, err := parsePrincipal(principal, l.cfg.LibDefaults.DefaultRealm)
		if err != nil {
			return err
		}
		if !want.Equal(cname) || wantRealm != realm {
			return fmt.Errorf("%w: the ticket cache %s is for %s, not %s: run kinit %s, or give --kerberos-keytab",
				ErrKerberosConfig, l.ccache, l.principal(), principalString(want, wantRealm), principalString(want, wantRealm))
		}
	}
	if !l.now().Before(tgt.end) {
		return expiredCacheError(l.ccache, l.principal(), tgt.end)
	}
	l.tgt, l.lastLogin = tgt, l.now()
	return nil
}

// cmpOr returns v, or def when v is the zero value.
func cmpOr[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// Name returns "GSSAPI".
func (m *GSSAPIMechanism) Name() string { return MechanismGSSAPI }

// Principal is the client principal, name@REALM.
func (m *GSSAPIMechanism) Principal() string { return m.login.principal() }

// ServicePrincipal is the service principal of a broker reached at host:
// SERVICE/host@REALM, the host in lower case as MIT Kerberos writes it,
// the realm from krb5.conf's [domain_realm], else the client's.
func (m *GSSAPIMechanism) ServicePrincipal(host string) (types.PrincipalName, string) {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	realm := m.login.cfg.ResolveRealm(host)
	if realm == "" {
		realm = m.login.realm
	}
	return types.PrincipalName{NameType: nametype.KRB_NT_SRV_HST, NameString: []string{m.service, host}}, realm
}

// NewSession gets a service ticket for the broker (logging in first when
// needed: the KDC exchanges are bounded by the configured timeout) and
// returns the exchange that presents it. It waits for the KDC: the Client
// uses StartSession, which does not.
func (m *GSSAPIMechanism) NewSession(node Node) (SASLSession, error) {
	sname, realm := m.ServicePrincipal(node.Host)
	tkt, err := m.fetchServiceTicket(context.Background(), sname, realm)
	if err != nil {
		return nil, err
	}
	return m.session(tkt, principalString(sname, realm)), nil
}

// fetchServiceTicket returns the ticket of the service principal sname of
// realm, from the cache or the KDC (logging in first when needed), the
// KDC exchanges bounded by the configured timeout and by ctx.
func (m *GSSAPIMechanism) fetchServiceTicket(ctx context.Context, sname types.PrincipalName, realm string) (*kerberosTicket, error) {
	ctx, cancel := context.WithTimeout(ctx, m.timeout)
	defer cancel()
	tkt, err := m.login.serviceTicket(ctx, sname, realm)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("%w: no answer from the KDC of realm %s within %s: %w", ErrKDCUnreachable, m.login.realm, m.timeout, err)
		}
		return nil, fmt.Errorf("kerberos %s for %s: %w", m.login.principal(), principalString(sname, realm), err)
	}
	return tkt, nil
}

// session is the exchange that presents tkt, a ticket for spn.
func (m *GSSAPIMechanism) session(tkt *kerberosTicket, spn string) *gssapiSession {
	return &gssapiSession{m: m, tkt: tkt, spn: spn}
}

// gssapiSession is one GSSAPI exchange: the AP-REQ, the broker's answer
// to it, the security layer.
type gssapiSession struct {
	m    *GSSAPIMechanism
	tkt  *kerberosTicket
	spn  string
	step int
	// key protects the wrap tokens: the broker's subkey (from an AP-REP),
	// else ours; acceptorSubkey says which.
	key            types.EncryptionKey
	acceptorSubkey bool
	ctime          time.Time
	cusec          int
	seq            int64
}

// The GSS-API token ids of RFC 4121 4.1.
var (
	tokenAPReq    = []byte{0x01, 0x00}
	tokenAPRep    = []byte{0x02, 0x00}
	tokenKRBError = []byte{0x03, 0x00}
)

// Step runs the exchange: the initial context token; then, as Kafka's
// brokers (Java's GssKrb5Server) answer, an AP-REP or an empty message is
// answered with an empty message, and the wrap token offering the
// security layers with our choice, which ends the exchange.
func (s *gssapiSession) Step(challenge []byte) ([]byte, bool, error) {
	s.step++
	switch {
	case s.step == 1:
		token, err := s.initialToken()
		return token, false, err
	case s.step > 4:
		return nil, false, errors.New("the broker's GSSAPI exchange goes on past the security layer")
	case len(challenge) >= 2 && challenge[0] == 0x05 && challenge[1] == 0x04: // a wrap token
		out, err := s.securityLayer(challenge)
		return out, true, err
	}
	return []byte{}, false, s.readAPReply(challenge)
}

// initialToken is the GSS-API initial context token: the Kerberos AP-REQ
// with an authenticator holding a fresh subkey and the GSS checksum
// (RFC 4121 4.1.1: integrity, confidentiality, replay and sequence
// detection requested; no mutual authentication, as Kafka's Java client).
func (s *gssapiSession) initialToken() ([]byte, error) {
	l := s.m.login
	auth, err := types.NewAuthenticator(l.realm, l.cname)
	if err != nil {
		return nil, fmt.Errorf("kerberos: authenticator: %w", err)
	}
	now := s.m.now().UTC()
	auth.CTime, auth.Cusec = now.Truncate(time.Second), now.Nanosecond()/1000
	s.ctime, s.cusec, s.seq = auth.CTime, auth.Cusec, auth.SeqNumber
	etype, err := crypto.GetEtype(s.tkt.key.KeyType)
	if err != nil {
		return nil, fmt.Errorf("kerberos: session key: %w", err)
	}
	subkey := make([]byte, etype.GetKeyByteSize())
	if _, err := rand.Read(subkey); err != nil {
		return nil, fmt.Errorf("kerberos: subkey: %w", err)
	}
	auth.SubKey = types.EncryptionKey{KeyType: s.tkt.key.KeyType, KeyValue: subkey}
	s.key = auth.SubKey
	auth.Cksum = types.Checksum{CksumType: chksumtype.GSSAPI, Checksum: gssChecksum(gssapi.ContextFlagInteg | gssapi.ContextFlagConf |
		gssapi.ContextFlagReplay | gssapi.ContextFlagSequence)}
	apReq, err := messages.NewAPReq(s.tkt.ticket, s.tkt.key, auth)
	if err != nil {
		return nil, fmt.Errorf("kerberos: AP-REQ: %w", err)
	}
	b, err := apReq.Marshal()
	if err != nil {
		return nil, fmt.Errorf("kerberos: AP-REQ: %w", err)
	}
	return gssToken(tokenAPReq, b), nil
}

// gssChecksum is the authenticator checksum of RFC 4121 4.1.1: no channel
// bindings, the context flags.
func gssChecksum(flags int) []byte {
	b := make([]byte, 24)
	binary.LittleEndian.PutUint32(b[0:4], 16)
	binary.LittleEndian.PutUint32(b[20:24], uint32(flags))
	return b
}

// gssOID is the DER encoding of the Kerberos 5 mechanism's OID.
var gssOID = []byte{0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x12, 0x01, 0x02, 0x02}

// gssToken frames a Kerberos message as a GSS-API token (RFC 2743 3.1):
// [APPLICATION 0] with the mechanism OID, the token id and the message.
func gssToken(id, msg []byte) []byte {
	inner := append(append(append([]byte{}, gssOID...), id...), msg...)
	return append(derHeader(0x60, len(inner)), inner...)
}

// derHeader is a DER tag and definite length.
func derHeader(tag byte, n int) []byte {
	if n < 0x80 {
		return []byte{tag, byte(n)}
	}
	var l []byte
	for v := n; v > 0; v >>= 8 {
		l = append([]byte{byte(v)}, l...)
	}
	return append([]byte{tag, 0x80 | byte(len(l))}, l...)
}

// parseGSSToken returns the token id and message of a GSS-API token of
// the Kerberos mechanism.
func parseGSSToken(b []byte) (id, msg []byte, err error) {
	var raw asn1.RawValue
	rest, err := asn1.Unmarshal(b, &raw)
	if err != nil || len(rest) > 0 || raw.Class != asn1.ClassApplication || raw.Tag != 0 {
		return nil, nil, errors.New("not a GSS-API token")
	}
	inner := raw.Bytes
	if len(inner) < len(gssOID)+2 || string(inner[:len(gssOID)]) != string(gssOID) {
		return nil, nil, errors.New("a GSS-API token of another mechanism than Kerberos 5")
	}
	return inner[len(gssOID) : len(gssOID)+2], inner[len(gssOID)+2:], nil
}
