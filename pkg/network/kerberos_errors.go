package network

import (
	"errors"
	"fmt"

	"github.com/jcmturner/gokrb5/v8/iana/errorcode"
)

// The Kerberos failures of SASL GSSAPI, each wrapped by the error that
// says what happened and what to do.
var (
	// ErrKerberosConfig: krb5.conf, the keytab or the ticket cache cannot
	// be used as given.
	ErrKerberosConfig = errors.New("kerberos configuration")
	// ErrKerberosNoCredentials: no keytab was given and there is no ticket
	// cache to use.
	ErrKerberosNoCredentials = errors.New("no kerberos credentials")
	// ErrKerberosTicketExpired: the ticket cache's ticket has expired and
	// cannot be renewed.
	ErrKerberosTicketExpired = errors.New("kerberos ticket expired")
	// ErrKDCUnreachable: no KDC of the realm answered.
	ErrKDCUnreachable = errors.New("cannot reach the kerberos KDC")
	// ErrKerberosClockSkew: this machine's clock and the KDC's (or the
	// broker's) differ by more than krb5.conf's clockskew.
	ErrKerberosClockSkew = errors.New("clock skew too great")
	// ErrKerberosWrongKey: the KDC's key of the client differs from the
	// keytab's (preauthentication failed).
	ErrKerberosWrongKey = errors.New("wrong kerberos key")
	// ErrKerberosUnknownPrincipal: the KDC does not know the client
	// principal.
	ErrKerberosUnknownPrincipal = errors.New("client principal unknown to the KDC")
	// ErrKerberosUnknownService: the KDC does not know the broker's
	// service principal.
	ErrKerberosUnknownService = errors.New("service principal unknown to the KDC")
)

// KDCError is an error answered by a KDC (a KRB-ERROR message).
type KDCError struct {
	// Realm is the realm asked, KDC the address that answered.
	Realm, KDC string
	// Principal is the client principal (a login) or the service
	// principal asked for (a service ticket).
	Principal string
	// Code is the Kerberos error code, Name its name, Text the KDC's own
	// text (may be empty).
	Code       int32
	Name, Text string
	// service: the error answers a request for a service ticket.
	service bool
	// eData is the error's e-data (the preauthentication the KDC asks for).
	eData []byte
}

// Error says what the KDC answered and what to do.
func (e *KDCError) Error() string {
	what := fmt.Sprintf("the KDC of realm %s (%s) answered %s (%d)", e.Realm, e.KDC, e.Name, e.Code)
	if e.Text != "" {
		what += ": " + e.Text
	}
	switch e.Code {
	case errorcode.KDC_ERR_C_PRINCIPAL_UNKNOWN:
		return fmt.Sprintf("%s: client principal %s is not in the realm's database: check --kerberos-principal"+
			" (sasl.kerberos.principal, the JAAS principal) and its realm", what, e.Principal)
	case errorcode.KDC_ERR_S_PRINCIPAL_UNKNOWN:
		return fmt.Sprintf("%s: service principal %s, built as SERVICE/BROKER-HOST@REALM from --kerberos-service-name and the"+
			" broker's advertised host, is not in the realm's database: check the service name (sasl.kerberos.service.name,"+
			" usually kafka) and that the brokers' advertised.listeners use the host names of their principals", what, e.Principal)
	case errorcode.KDC_ERR_PREAUTH_FAILED, errorcode.KRB_AP_ERR_BAD_INTEGRITY:
		return fmt.Sprintf("%s: the key of %s in the keytab is not the KDC's (the key was changed since the keytab was"+
			" written?): get a new keytab (kadmin ktadd) or check --kerberos-keytab", what, e.Principal)
	case errorcode.KRB_AP_ERR_SKEW:
		return fmt.Sprintf("%s: this machine's clock and the KDC's differ by more than the clockskew of krb5.conf"+
			" (5 minutes by default): synchronise the clocks (NTP)", what)
	case errorcode.KDC_ERR_CLIENT_REVOKED:
		return fmt.Sprintf("%s: principal %s is disabled or locked out", what, e.Principal)
	case errorcode.KRB_AP_ERR_TKT_EXPIRED:
		return fmt.Sprintf("%s: the ticket of %s expired: run kinit again, or give --kerberos-keytab", what, e.Principal)
	}
	return what
}

// Unwrap classifies the error: errors.Is finds the Err* it stands for.
func (e *KDCError) Unwrap() error {
	switch e.Code {
	case errorcode.KDC_ERR_C_PRINCIPAL_UNKNOWN:
		return ErrKerberosUnknownPrincipal
	case errorcode.KDC_ERR_S_PRINCIPAL_UNKNOWN:
		return ErrKerberosUnknownService
	case errorcode.KDC_ERR_PREAUTH_FAILED, errorcode.KRB_AP_ERR_BAD_INTEGRITY:
		return ErrKerberosWrongKey
	case errorcode.KRB_AP_ERR_SKEW:
		return ErrKerberosClockSkew
	case errorcode.KRB_AP_ERR_TKT_EXPIRED:
		return ErrKerberosTicketExpired
	}
	return nil
}
