package main

import (
	"crypto/tls"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kproduce/kproduce/pkg/network/networktest"
)

// saslUser is a -sasl user.
type saslUser struct {
	mechanism, user, pass string
}

// parseSASLUser parses MECH:USER:PASS; the password may hold colons.
func parseSASLUser(v string) (saslUser, error) {
	parts := strings.SplitN(v, ":", 3)
	if len(parts) != 3 || parts[1] == "" {
		return saslUser{}, fmt.Errorf("want MECH:USER:PASS")
	}
	mech := strings.ToUpper(parts[0])
	switch mech {
	case "PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512":
	default:
		return saslUser{}, fmt.Errorf("mechanism %q: want PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512", parts[0])
	}
	return saslUser{mechanism: mech, user: parts[1], pass: parts[2]}, nil
}

// securityOpts returns the cluster options for -tls, -mtls and -sasl,
// writing the generated CA (and client certificate) into the TLS directory
// and printing their paths on out.
func securityOpts(c config, out io.Writer, now time.Time) ([]kfake.Opt, error) {
	var opts []kfake.Opt
	if len(c.sasl) > 0 {
		opts = append(opts, kfake.EnableSASL())
		for _, u := range c.sasl {
			opts = append(opts, kfake.Superuser(u.mechanism, u.user, u.pass))
		}
	}
	if !c.tls {
		return opts, nil
	}
	cfg, err := writeTLSFiles(c, out, now)
	if err != nil {
		return nil, err
	}
	return append(opts, kfake.TLS(cfg)), nil
}

// tlsFile is a file written for clients, printed as "label path".
type tlsFile struct {
	label, name string
	data        []byte
}

// writeTLSFiles generates the CA and certificates, writes the files a
// client needs and returns the brokers' TLS configuration.
func writeTLSFiles(c config, out io.Writer, now time.Time) (*tls.Config, error) {
	dir := c.tlsDir
	if dir == "" {
		d, err := os.MkdirTemp("", "devbroker-tls-")
		if err != nil {
			return nil, fmt.Errorf("tls directory: %w", err)
		}
		dir = d
	} else if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("tls directory: %w", err)
	}
	pki, err := networktest.NewPKI("devbroker CA", now)
	if err != nil {
		return nil, err
	}
	server, err := pki.Server(now, "127.0.0.1", "localhost", "::1")
	if err != nil {
		return nil, err
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{server.TLS}, MinVersion: tls.VersionTLS12}
	files := []tlsFile{{"tls-ca", "ca.pem", pki.CAPEM}}
	if c.mtls {
		client, err := pki.Client(now, "devbroker-client")
		if err != nil {
			return nil, err
		}
		cfg.ClientCAs, cfg.ClientAuth = pki.Pool(), tls.RequireAndVerifyClientCert
		files = append(files, tlsFile{"tls-cert", "client.pem", client.CertPEM}, tlsFile{"tls-key", "client.key", client.KeyPEM})
	}
	for _, f := range files {
		path := filepath.Join(dir, f.name)
		if err := os.WriteFile(path, f.data, 0o600); err != nil {
			return nil, fmt.Errorf("write %s: %w", f.label, err)
		}
		if _, err := fmt.Fprintf(out, "%s %s\n", f.label, path); err != nil {
			return nil, err
		}
	}
	return cfg, nil
}
