package network

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"time"
)

// Errors of connection setup that no retry can fix, classified with
// errors.Is. A node that fails with one of them is in the final
// AuthenticationFailed state, like a node whose SASL authentication failed,
// and AuthenticationError reports the error.
var (
	// ErrTLSHandshake: the TLS handshake failed for a reason a retry cannot
	// fix: the broker's certificate is not trusted or does not name the
	// broker, the broker rejected the client (certificate required or not
	// trusted), the peer does not speak TLS, or it sent no TLS reply in
	// time.
	ErrTLSHandshake = errors.New("tls handshake failed")
	// ErrClosedBeforeResponse: the broker closed the connection during the
	// TLS handshake or before its first response. It happens once when a
	// broker restarts; earlyCloseLimit times in a row on one node, with no
	// connection ready in between, it is final: the listener expects
	// another security protocol (TLS or plaintext).
	ErrClosedBeforeResponse = errors.New("connection closed by the broker before its first response")
)

// earlyCloseLimit is how many ErrClosedBeforeResponse failures in a row
// make a node's failure final.
const earlyCloseLimit = 2

// maxTLSHandshakeTimeout caps the time a TLS handshake may take.
const maxTLSHandshakeTimeout = 10 * time.Second

// tlsHandshakeTimeout is the time the TLS handshake of a connection whose
// whole setup may take setupTimeout is given: half of it, so that a peer
// that never answers the hello (a plaintext listener) is recognised before
// the Client's setup timeout, which would only retry, and at most
// maxTLSHandshakeTimeout.
func tlsHandshakeTimeout(setupTimeout time.Duration) time.Duration {
	return min(setupTimeout/2, maxTLSHandshakeTimeout)
}

// isFinalSetupFailure reports whether cause ends a node for good.
func isFinalSetupFailure(cause error) bool {
	return errors.Is(cause, ErrTLSHandshake) || errors.Is(cause, ErrNotKafka)
}

// handshakeError describes a failed TLS handshake. setupCtx bounds the
// whole connection setup (and is cancelled when the Client closes the
// connection); hsCtx bounds the handshake alone.
func handshakeError(err error, setupCtx, hsCtx context.Context, hsTimeout time.Duration) error {
	switch {
	case setupCtx.Err() != nil:
		if errors.Is(setupCtx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("tls handshake: %w: %w", ErrConnectionSetupTimeout, err)
		}
		return fmt.Errorf("tls handshake: %w", err)
	case hsCtx.Err() != nil:
		return fmt.Errorf("%w: the broker accepted the connection but sent no TLS reply within %v"+
			" (is its listener plaintext? try without --tls): %w", ErrTLSHandshake, hsTimeout.Round(time.Millisecond), context.DeadlineExceeded)
	case isPeerHangUp(err):
		return fmt.Errorf("%w, during the TLS handshake (is the broker's listener plaintext? try without --tls): %w",
			ErrClosedBeforeResponse, err)
	case isTransportError(err):
		return fmt.Errorf("tls handshake: %w", err)
	}
	return fmt.Errorf("%w: %w%s", ErrTLSHandshake, err, tlsHint(err))
}

// firstReadError describes a connection that failed before its first
// response: a peer that hung up (a TLS listener spoken to in plaintext
// hangs up without a word), or, on TLS, a broker that refused the client
// with an alert after the handshake (TLS 1.3 checks the client certificate
// then).
func firstReadError(err error, isTLS bool) error {
	// A partial size prefix (io.ErrUnexpectedEOF) is a reply cut short,
	// not a hang-up.
	hangUp := errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNABORTED)
	switch {
	case isTLS && isRemoteAlert(err):
		return fmt.Errorf("%w: %w%s", ErrTLSHandshake, err, tlsHint(err))
	case hangUp && isTLS:
		return fmt.Errorf("%w: %w", ErrClosedBeforeResponse, err)
	case hangUp:
		return fmt.Errorf("%w (is the listener TLS? try --tls): %w", ErrClosedBeforeResponse, err)
	}
	return readError(err, false)
}

// isPeerHangUp reports whether err says the peer closed or reset the
// connection.
func isPeerHangUp(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNABORTED) || errors.Is(err, syscall.EPIPE)
}

// isTransportError reports whether err is a network error below TLS (a
// failed read or write), as opposed to a TLS protocol failure.
func isTransportError(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && !isRemoteAlert(err)
}

// isRemoteAlert reports whether err is a TLS alert the peer sent. Go
// reports one as a *net.OpError whose Op is "remote error".
func isRemoteAlert(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "remote error" {
		return true
	}
	var alert tls.AlertError
	return errors.As(err, &alert)
}

// tlsHint suggests what to check for a TLS failure.
func tlsHint(err error) string {
	var (
		unknown  x509.UnknownAuthorityError
		hostname x509.HostnameError
		invalid  x509.CertificateInvalidError
		header   tls.RecordHeaderError
	)
	switch {
	case errors.As(err, &unknown):
		return " (the broker's certificate is not signed by a trusted CA: give the CA that signed it with --tls-ca)"
	case errors.As(err, &hostname):
		return " (the broker's certificate does not name the address connected to: connect by a name it holds, or set --tls-server-name)"
	case errors.As(err, &invalid) && invalid.Reason == x509.Expired:
		return " (the certificate is expired or not yet valid: check its dates and the clocks)"
	case errors.As(err, &header):
		return " (the peer does not speak TLS: is its listener plaintext? try without --tls)"
	case isRemoteAlert(err) && strings.Contains(err.Error(), "certificate"):
		return " (the broker rejected the client: if it requires a client certificate, give one it trusts with --tls-cert and --tls-key, or --tls-keystore)"
	case isRemoteAlert(err) && strings.Contains(err.Error(), "handshake failure"):
		return " (the broker refused the handshake: if it requires a client certificate, give one it trusts with --tls-cert and --tls-key, or --tls-keystore;" +
			" otherwise it shares no TLS version or cipher suite with kproduce)"
	}
	return ""
}
