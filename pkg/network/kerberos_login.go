package network

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jcmturner/gofork/encoding/asn1"
	"github.com/jcmturner/gokrb5/v8/config"
	"github.com/jcmturner/gokrb5/v8/credentials"
	"github.com/jcmturner/gokrb5/v8/crypto"
	"github.com/jcmturner/gokrb5/v8/iana/errorcode"
	"github.com/jcmturner/gokrb5/v8/iana/keyusage"
	"github.com/jcmturner/gokrb5/v8/iana/nametype"
	"github.com/jcmturner/gokrb5/v8/iana/patype"
	"github.com/jcmturner/gokrb5/v8/keytab"
	"github.com/jcmturner/gokrb5/v8/messages"
	"github.com/jcmturner/gokrb5/v8/types"
)

// kerberosTicket is a ticket with its session key and lifetime.
type kerberosTicket struct {
	ticket                messages.Ticket
	key                   types.EncryptionKey
	start, end, renewTill time.Time
}

// refreshAt is when a ticket is refreshed: at 80% of its lifetime, as the
// Java client's login thread does (sasl.kerberos.ticket.renew.window.factor).
func (t *kerberosTicket) refreshAt() time.Time { return t.start.Add(t.end.Sub(t.start) * 4 / 5) }

// kerberosLogin holds the client's Kerberos credentials: the keytab or
// ticket cache it logs in with, its ticket-granting ticket and the service
// tickets of the brokers. Its methods are safe for concurrent use.
type kerberosLogin struct {
	cfg        *config.Config
	cname      types.PrincipalName
	realm      string
	keytab     *keytab.Keytab // nil: the ticket cache
	ccache     string
	transport  *kdcTransport
	now        func() time.Time
	minRelogin time.Duration

	// turn lets one goroutine at a time talk to the KDC, so that two
	// sessions starting together log in once.
	turn chan struct{}

	mu        sync.Mutex // guards the fields below
	tgt       *kerberosTicket
	lastLogin time.Time
	services  map[string]*kerberosTicket
}

// principal is the client principal as name@REALM.
func (l *kerberosLogin) principal() string { return principalString(l.cname, l.realm) }

// principalString writes a principal name as MIT's tools do.
func principalString(pn types.PrincipalName, realm string) string {
	return pn.PrincipalNameString() + "@" + realm
}

// serviceTicket returns a ticket for the service principal sname of
// realm: a cached one while it is fresh, else a new one from the KDC,
// logging in again first when the ticket-granting ticket needs it.
func (l *kerberosLogin) serviceTicket(ctx context.Context, sname types.PrincipalName, realm string) (*kerberosTicket, error) {
	spn := principalString(sname, realm)
	if cached := l.freshService(spn, l.now()); cached != nil {
		return cached, nil // no need to wait for a KDC exchange under way
	}
	select {
	case l.turn <- struct{}{}:
		defer func() { <-l.turn }()
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for the KDC: %w", ctx.Err())
	}
	now := l.now()
	if cached := l.freshService(spn, now); cached != nil {
		return cached, nil // obtained while this one waited
	}
	tgt, err := l.ticketGrantingTicket(ctx, now)
	if err != nil {
		return nil, err
	}
	tkt, err := l.tgsExchange(ctx, tgt, l.realm, realm, sname, false)
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	l.services[spn] = tkt
	l.mu.Unlock()
	return tkt, nil
}

// freshService returns the cached ticket of spn when it is before its
// refresh time, else nil.
func (l *kerberosLogin) freshService(spn string, now time.Time) *kerberosTicket {
	l.mu.Lock()
	defer l.mu.Unlock()
	if t := l.services[spn]; t != nil && now.Before(t.refreshAt()) {
		return t
	}
	return nil
}

// ticketGrantingTicket returns the TGT, renewed or obtained again when it
// is past its refresh time (see keepTGT).
func (l *kerberosLogin) ticketGrantingTicket(ctx context.Context, now time.Time) (*kerberosTicket, error) {
	l.mu.Lock()
	tgt, last := l.tgt, l.lastLogin
	l.mu.Unlock()
	if keepTGT(tgt, last, now, l.minRelogin) {
		return tgt, nil
	}
	var fresh *kerberosTicket
	var err error
	switch {
	case l.keytab != nil:
		fresh, err = l.asExchange(ctx, now)
	default:
		fresh, err = l.refreshFromCache(ctx, tgt, now)
	}
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	l.tgt, l.lastLogin = fresh, now
	l.mu.Unlock()
	return fresh, nil
}

// keepTGT reports whether tgt, obtained at last, still serves at now:
// before its refresh time; after it, while the last login is more recent
// than minRelogin, unless the ticket ends before another login is allowed
// (as the Java client's login thread, which lets no ticket expire for
// sasl.kerberos.min.time.before.relogin: a ticket shorter than that is
// refreshed at 80% of its life all the same).
func keepTGT(tgt *kerberosTicket, last, now time.Time, minRelogin time.Duration) bool {
	switch {
	case tgt == nil || !now.Before(tgt.end):
		return false
	case now.Before(tgt.refreshAt()):
		return true
	}
	return now.Sub(last) < minRelogin && !tgt.end.Before(last.Add(minRelogin))
}

// refreshFromCache renews the TGT while it is renewable, else reads the
// ticket cache again (the user may have run kinit since).
func (l *kerberosLogin) refreshFromCache(ctx context.Context, tgt *kerberosTicket, now time.Time) (*kerberosTicket, error) {
	if tgt != nil && now.Before(tgt.end) && now.Before(tgt.renewTill) {
		krbtgt := types.PrincipalName{NameType: nametype.KRB_NT_SRV_INST, NameString: []string{"krbtgt", l.realm}}
		if renewed, err := l.tgsExchange(ctx, tgt, l.realm, l.realm, krbtgt, true); err == nil {
			return renewed, nil
		}
	}
	cached, _, _, err := readCCacheTGT(l.ccache)
	if err != nil {
		return nil, err
	}
	if !now.Before(cached.end) {
		return nil, expiredCacheError(l.ccache, l.principal(), cached.end)
	}
	return cached, nil
}

// expiredCacheError is the error for a ticket cache whose ticket expired.
func expiredCacheError(path, principal string, end time.Time) error {
	return fmt.Errorf("%w: the ticket of %s in the ticket cache %s expired at %s: run kinit again, or give --kerberos-keytab",
		ErrKerberosTicketExpired, principal, path, end.Local().Format(time.DateTime))
}

// asExchange logs in with the keytab (RFC 4120 3.1): an AS-REQ, with the
// encrypted timestamp the KDC asks for, for a TGT.
func (l *kerberosLogin) asExchange(ctx context.Context, now time.Time) (*kerberosTicket, error) {
	req, err := messages.NewASReqForTGT(l.realm, l.cfg, l.cname)
	if err != nil {
		return nil, fmt.Errorf("kerberos: AS-REQ: %w", err)
	}
	req.ReqBody.Till = now.Add(l.cfg.LibDefaults.TicketLifetime)
	if l.cfg.LibDefaults.RenewLifetime > 0 {
		req.ReqBody.RTime = now.Add(l.cfg.LibDefaults.RenewLifetime)
	}
	reply, err := l.sendASReq(ctx, req)
	var kerr *KDCError
	if errors.As(err, &kerr) && kerr.Code == errorcode.KDC_ERR_PREAUTH_REQUIRED {
		pa, perr := l.encryptedTimestamp(kerr.eData, now)
		if perr != nil {
			return nil, perr
		}
		req.PAData = append(req.PAData, pa)
		reply, err = l.sendASReq(ctx, req)
	}
	if err != nil {
		return nil, err
	}
	var rep messages.ASRep
	if err := rep.Unmarshal(reply); err != nil {
		return nil, fmt.Errorf("the KDC's AS-REP cannot be read: %w", err)
	}
	creds := credentials.NewFromPrincipalName(l.cname, l.realm).WithKeytab(l.keytab)
	if _, err := rep.DecryptEncPart(creds); err != nil {
		return nil, fmt.Errorf("%w: the keytab's key of %s cannot decrypt the KDC's answer: get a new keytab (kadmin ktadd)",
			ErrKerberosWrongKey, l.principal())
	}
	if rep.DecryptedEncPart.Nonce != req.ReqBody.Nonce || !rep.CName.Equal(l.cname) {
		return nil, fmt.Errorf("%w: the KDC's AS-REP does not answer the request", ErrAuthentication)
	}
	if err := l.checkSkew(rep.DecryptedEncPart.AuthTime, now); err != nil {
		return nil, err
	}
	return ticketOf(rep.Ticket, rep.DecryptedEncPart), nil
}

// sendASReq sends an AS-REQ to the client realm's KDC.
func (l *kerberosLogin) sendASReq(ctx context.Context, req messages.ASReq) ([]byte, error) {
	b, err := req.Marshal()
	if err != nil {
		return nil, fmt.Errorf("kerberos: AS-REQ: %w", err)
	}
	return l.transport.exchange(ctx, l.realm, b, l.principal(), false)
}

// checkSkew compares the KDC's time with ours.
func (l *kerberosLogin) checkSkew(kdcTime, now time.Time) error {
	if d := kdcTime.Sub(now).Abs(); d > l.cfg.LibDefaults.Clockskew {
		return fmt.Errorf("%w: the KDC of realm %s says it is %s, this machine %s (%s apart, more than the %s of krb5.conf's clockskew):"+
			" synchronise the clocks (NTP)", ErrKerberosClockSkew, l.realm, kdcTime.UTC().Format(time.DateTime),
			now.UTC().Format(time.DateTime), d.Round(time.Second), l.cfg.LibDefaults.Clockskew)
	}
	return nil
}

// encryptedTimestamp is the PA-ENC-TIMESTAMP preauthentication, with the
// keytab's key of the encryption type the KDC names in its
// PREAUTH_REQUIRED error (ETYPE-INFO2).
func (l *kerberosLogin) encryptedTimestamp(eData []byte, now time.Time) (types.PAData, error) {
	etype := int32(0)
	var pas types.PADataSequence
	if err := pas.Unmarshal(eData); err == nil {
		for _, pa := range pas {
			if pa.PADataType != patype.PA_ETYPE_INFO2 {
				continue
			}
			if info, err := pa.GetETypeInfo2(); err == nil && len(info) > 0 {
				etype = info[0].EType
			}
		}
	}
	if etype == 0 && len(l.cfg.LibDefaults.DefaultTktEnctypeIDs) > 0 {
		etype = l.cfg.LibDefaults.DefaultTktEnctypeIDs[0]
	}
	key, kvno, err := l.keytab.GetEncryptionKey(l.cname, l.realm, 0, etype)
	if err != nil {
		return types.PAData{}, fmt.Errorf("%w: the keytab holds no key of %s of the encryption type %d the KDC asks for: %v",
			ErrKerberosWrongKey, l.principal(), etype, err)
	}
	ts, err := asn1.Marshal(types.PAEncTSEnc{PATimestamp: now.UTC().Truncate(time.Second), PAUSec: now.Nanosecond() / 1000})
	if err != nil {
		return types.PAData{}, fmt.Errorf("kerberos: timestamp: %w", err)
	}
	ed, err := crypto.GetEncryptedData(ts, key, keyusage.AS_REQ_PA_ENC_TIMESTAMP, kvno)
	if err != nil {
		return types.PAData{}, fmt.Errorf("kerberos: timestamp: %w", err)
	}
	b, err := ed.Marshal()
	if err != nil {
		return types.PAData{}, fmt.Errorf("kerberos: timestamp: %w", err)
	}
	return types.PAData{PADataType: patype.PA_ENC_TIMESTAMP, PADataValue: b}, nil
}

// tgsExchange asks the KDC of kdcRealm for a ticket to sname of
// serviceRealm with tgt (RFC 4120 3.3), following referrals to other
// realms; renewal renews tgt itself.
func (l *kerberosLogin) tgsExchange(ctx context.Context, tgt *kerberosTicket, kdcRealm, serviceRealm string,
	sname types.PrincipalName, renewal bool) (*kerberosTicket, error) {
	spn := principalString(sname, serviceRealm)
	for range 6 {
		req, err := messages.NewTGSReq(l.cname, kdcRealm, l.cfg, tgt.ticket, tgt.key, sname, renewal)
		if err != nil {
			return nil, fmt.Errorf("kerberos: TGS-REQ for %s: %w", spn, err)
		}
		b, err := req.Marshal()
		if err != nil {
			return nil, fmt.Errorf("kerberos: TGS-REQ for %s: %w", spn, err)
		}
		reply, err := l.transport.exchange(ctx, kdcRealm, b, spn, true)
		if err != nil {
			return nil, err
		}
		var rep messages.TGSRep
		if err := rep.Unmarshal(reply); err != nil {
			return nil, fmt.Errorf("the KDC's TGS-REP for %s cannot be read: %w", spn, err)
		}
		if err := rep.DecryptEncPart(tgt.key); err != nil || rep.DecryptedEncPart.Nonce != req.ReqBody.Nonce {
			return nil, fmt.Errorf("%w: the KDC's TGS-REP for %s does not answer the request", ErrAuthentication, spn)
		}
		got := ticketOf(rep.Ticket, rep.DecryptedEncPart)
		names := rep.Ticket.SName.NameString
		if renewal || len(names) < 2 || names[0] != "krbtgt" || rep.Ticket.SName.Equal(sname) {
			return got, nil
		}
		tgt, kdcRealm = got, names[len(names)-1] // a referral to the service's realm
	}
	return nil, fmt.Errorf("%w: too many realm referrals for %s", ErrAuthentication, spn)
}

// ticketOf is a ticket with the times and key of its KDC reply.
func ticketOf(t messages.Ticket, part messages.EncKDCRepPart) *kerberosTicket {
	start := part.StartTime
	if start.IsZero() {
		start = part.AuthTime
	}
	return &kerberosTicket{ticket: t, key: part.Key, start: start, end: part.EndTime, renewTill: part.RenewTill}
}
