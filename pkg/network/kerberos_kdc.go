package network

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jcmturner/gokrb5/v8/config"
	"github.com/jcmturner/gokrb5/v8/iana/errorcode"
	"github.com/jcmturner/gokrb5/v8/messages"
)

// maxKDCReplyBytes bounds a KDC's reply over TCP: tickets with large
// authorisation data (Active Directory's PAC) stay well below it.
const maxKDCReplyBytes = 1 << 20

// kdcTransport sends Kerberos messages to the KDCs of a realm over TCP
// (RFC 4120 7.2.2), falling back to UDP for a KDC that refuses TCP. Every
// exchange is bounded by its context, its end as well as its deadline:
// the look-up of the KDCs, the dial and the I/O on the connection stop
// when it ends. A KRB-ERROR answer is a *KDCError.
type kdcTransport struct {
	// kdcs returns the KDC addresses of a realm, in the order to try.
	kdcs func(ctx context.Context, realm string) ([]string, error)
	dial func(ctx context.Context, network, addr string) (net.Conn, error)
}

// exchange sends req to the realm's KDCs in turn until one answers.
// principal names, in a KRB-ERROR, the principal the request was about;
// service says whether it was a service principal.
func (t *kdcTransport) exchange(ctx context.Context, realm string, req []byte, principal string, service bool) ([]byte, error) {
	addrs, err := t.kdcs(ctx, realm)
	if err != nil || len(addrs) == 0 {
		return nil, fmt.Errorf("%w: no KDC of realm %s in krb5.conf (a kdc line in its [realms] section): %v", ErrKerberosConfig, realm, err)
	}
	var failures []string
	for _, addr := range addrs {
		reply, err := t.exchangeWith(ctx, addr, req)
		if err != nil {
			failures = append(failures, fmt.Sprintf("%s: %v", addr, err))
			if ctx.Err() != nil {
				break
			}
			continue
		}
		if len(reply) > 0 && reply[0] == 0x7e { // [APPLICATION 30]: KRB-ERROR
			var kerr messages.KRBError
			if err := kerr.Unmarshal(reply); err != nil {
				return nil, fmt.Errorf("the KDC of realm %s (%s) answered a KRB-ERROR that cannot be read: %w", realm, addr, err)
			}
			return nil, &KDCError{Realm: realm, KDC: addr, Principal: principal, Code: kerr.ErrorCode,
				Name: kdcErrorName(kerr), Text: kerr.EText, service: service, eData: kerr.EData}
		}
		return reply, nil
	}
	return nil, fmt.Errorf("%w of realm %s at %s (the kdc lines of krb5.conf): %s", ErrKDCUnreachable, realm,
		strings.Join(addrs, ", "), strings.Join(failures, "; "))
}

// kdcErrorName is the name of a KRB-ERROR's code (KDC_ERR_...).
func kdcErrorName(e messages.KRBError) string {
	name, _, _ := strings.Cut(strings.TrimPrefix(errorcode.Lookup(e.ErrorCode), fmt.Sprintf("(%d) ", e.ErrorCode)), " ")
	return name
}

// exchangeWith sends req to one KDC over TCP, or over UDP when the KDC
// refuses TCP connections.
func (t *kdcTransport) exchangeWith(ctx context.Context, addr string, req []byte) ([]byte, error) {
	reply, err := t.exchangeTCP(ctx, addr, req)
	var opErr *net.OpError
	if err == nil || !errors.As(err, &opErr) || opErr.Op != "dial" || ctx.Err() != nil {
		return reply, err
	}
	udpReply, udpErr := t.exchangeUDP(ctx, addr, req)
	if udpErr != nil {
		return nil, fmt.Errorf("tcp: %w; udp: %v", err, udpErr)
	}
	return udpReply, nil
}

// exchangeTCP sends a length-prefixed request and reads the reply.
func (t *kdcTransport) exchangeTCP(ctx context.Context, addr string, req []byte) ([]byte, error) {
	conn, err := t.dial(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	defer bindConn(ctx, conn)()
	msg := binary.BigEndian.AppendUint32(make([]byte, 0, 4+len(req)), uint32(len(req)))
	if _, err := conn.Write(append(msg, req...)); err != nil {
		return nil, err
	}
	var size [4]byte
	if _, err := io.ReadFull(conn, size[:]); err != nil {
		return nil, fmt.Errorf("no answer: %w", err)
	}
	n := binary.BigEndian.Uint32(size[:])
	if n == 0 || n > maxKDCReplyBytes {
		return nil, fmt.Errorf("the reply's size %d is out of range 1-%d: is this a KDC?", n, maxKDCReplyBytes)
	}
	reply := make([]byte, n)
	if _, err := io.ReadFull(conn, reply); err != nil {
		return nil, fmt.Errorf("short answer: %w", err)
	}
	return reply, nil
}

// exchangeUDP sends one datagram and reads the reply.
func (t *kdcTransport) exchangeUDP(ctx context.Context, addr string, req []byte) ([]byte, error) {
	conn, err := t.dial(ctx, "udp", addr)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	defer bindConn(ctx, conn)()
	if _, err := conn.Write(req); err != nil {
		return nil, err
	}
	buf := make([]byte, 65536)
	n, err := conn.Read(buf)
	if err != nil {
		return nil, err
	}
	return buf[:n], nil
}

// bindConn bounds the I/O on conn by ctx: its deadline, and its end (a
// read or write under way then fails at once). The returned function
// unbinds it.
func bindConn(ctx context.Context, conn net.Conn) (unbind func() bool) {
	if d, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(d)
	}
	return context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
}

// realmKDCs lists the KDCs of a realm to try: those of krb5.conf (in an
// order gokrb5 shuffles, spreading clients over them), or, when it names
// none and has dns_lookup_kdc, those of the realm's _kerberos._tcp SRV
// records (by priority, then weight), looked up within the exchange's
// context.
func realmKDCs(cfg *config.Config) func(context.Context, string) ([]string, error) {
	return func(ctx context.Context, realm string) ([]string, error) {
		if cfg.LibDefaults.DNSLookupKDC && !hasKDCLines(cfg, realm) {
			_, srvs, err := net.DefaultResolver.LookupSRV(ctx, "kerberos", "tcp", realm)
			if err != nil {
				return nil, err
			}
			addrs := make([]string, 0, len(srvs))
			for _, s := range srvs {
				addrs = append(addrs, net.JoinHostPort(strings.TrimSuffix(s.Target, "."), strconv.Itoa(int(s.Port))))
			}
			return addrs, nil
		}
		_, m, err := cfg.GetKDCs(realm, true) // reads krb5.conf only
		if err != nil {
			return nil, err
		}
		keys := make([]int, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Ints(keys)
		addrs := make([]string, 0, len(keys))
		for _, k := range keys {
			addrs = append(addrs, m[k])
		}
		return addrs, nil
	}
}

// hasKDCLines reports whether krb5.conf names KDCs of realm (gokrb5 takes
// the last section of a realm named more than once).
func hasKDCLines(cfg *config.Config, realm string) bool {
	n := 0
	for _, r := range cfg.Realms {
		if r.Realm == realm {
			n = len(r.KDC)
		}
	}
	return n > 0
}

// defaultDialer dials with a net.Dialer bounded by the context.
func defaultDialer(ctx context.Context, network, addr string) (net.Conn, error) {
	d := net.Dialer{Timeout: 10 * time.Second}
	return d.DialContext(ctx, network, addr)
}
