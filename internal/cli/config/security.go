package config

import (
	"crypto/tls"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/kproduce/kproduce/internal/cli/config/javaprops"
	"github.com/kproduce/kproduce/internal/tlsconf"
	"github.com/kproduce/kproduce/pkg/mskiam"
	"github.com/kproduce/kproduce/pkg/network"
)

// SecurityOptions are the TLS and SASL settings of a run. The passwords
// are secrets: they are never logged nor put in an error.
type SecurityOptions struct {
	// TLS wraps every broker connection in TLS.
	TLS bool
	// TLSCA is the PEM file of the CAs to trust; "" means the system's.
	TLSCA string
	// TLSCert and TLSKey are the PEM files of the client certificate and
	// its private key (mutual TLS); both or neither.
	TLSCert, TLSKey string
	// TLSKeyPassword decrypts an encrypted TLSKey, or the key of
	// TLSKeystore when it differs from the store's password.
	TLSKeyPassword string
	// TLSKeystore is a key store (PKCS #12, JKS or PEM) holding the client
	// certificate and its key, opened with TLSKeystorePassword; its key is
	// the one TLSKeystoreAlias names, else the only or first one.
	TLSKeystore, TLSKeystorePassword, TLSKeystoreAlias string
	// TLSTruststore is a trust store (PKCS #12, JKS, PEM or DER) of the CAs
	// to trust, opened with TLSTruststorePassword.
	TLSTruststore, TLSTruststorePassword string
	// TLSServerName is the name the brokers' certificates must hold; ""
	// means the host connected to.
	TLSServerName string
	// TLSInsecureSkipVerify accepts any broker certificate.
	TLSInsecureSkipVerify bool
	// TLSSkipHostnameVerify checks the broker's certificate chain but not
	// the name in it (Java's empty ssl.endpoint.identification.algorithm).
	TLSSkipHostnameVerify bool

	// SASLMechanism is PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512, upper case;
	// "" means no SASL.
	SASLMechanism string
	// SASLUsername and SASLPassword are the SASL credentials.
	SASLUsername, SASLPassword string
	// Kerberos holds the GSSAPI settings, the paths resolved (KRB5_CONFIG,
	// KRB5CCNAME and their defaults).
	Kerberos network.GSSAPIConfig
	// OAuth holds the OAUTHBEARER settings, AWS the AWS_MSK_IAM ones.
	OAuth OAuthOptions
	AWS   AWSOptions

	// TLSConfig is the client TLS configuration built from the fields
	// above; nil without TLS.
	TLSConfig *tls.Config
	// SASL is the mechanism built from the fields above; nil without SASL.
	SASL network.SASLMechanism
}

// readSecurity reads the TLS and SASL options. TLS is on with --tls, or
// when another --tls-* option is given and --tls is not explicitly false.
func (r *optionReader) readSecurity(o *Connection) {
	s := &o.Security
	s.TLS = r.boolean("tls")
	s.TLSCA = strings.TrimSpace(r.str("tls-ca"))
	s.TLSCert = strings.TrimSpace(r.str("tls-cert"))
	s.TLSKey = strings.TrimSpace(r.str("tls-key"))
	s.TLSKeyPassword = r.secret("tls-key-password")
	r.readStores(s)
	s.TLSServerName = strings.TrimSpace(r.str("tls-server-name"))
	s.TLSInsecureSkipVerify = r.boolean("tls-insecure-skip-verify")
	if !r.vals.IsSet("tls") {
		s.TLS = s.TLSCA != "" || s.TLSCert != "" || s.TLSKey != "" || s.TLSKeystore != "" || s.TLSTruststore != "" ||
			s.TLSServerName != "" || s.TLSInsecureSkipVerify
	}
	if (s.TLSCert == "") != (s.TLSKey == "") && !r.failed("tls-cert") {
		r.fail("tls-cert", fmt.Errorf("%w: --tls-cert and --tls-key go together (the client certificate and its private key)", ErrBadValue))
	}
	r.readSASL(s)
	if b := o.BootstrapTimeout; s.SASLMechanism == network.MechanismGSSAPI && b > 0 && b < s.Kerberos.Timeout {
		s.Kerberos.Timeout = b
	}
}

// readStores reads the key store and trust store options: each instead
// of the PEM options it stands for.
func (r *optionReader) readStores(s *SecurityOptions) {
	s.TLSKeystore = strings.TrimSpace(r.str("tls-keystore"))
	s.TLSKeystorePassword = r.secret("tls-keystore-password")
	s.TLSKeystoreAlias = strings.TrimSpace(r.str("tls-keystore-alias"))
	s.TLSTruststore = strings.TrimSpace(r.str("tls-truststore"))
	s.TLSTruststorePassword = r.secret("tls-truststore-password")
	if s.TLSKeystore != "" && (s.TLSCert != "" || s.TLSKey != "") && !r.failed("tls-keystore") {
		r.fail("tls-keystore", fmt.Errorf("%w: give the client certificate either as --tls-keystore or as --tls-cert and --tls-key, not both", ErrBadValue))
	}
	if s.TLSTruststore != "" && s.TLSCA != "" && !r.failed("tls-truststore") {
		r.fail("tls-truststore", fmt.Errorf("%w: give the CAs either as --tls-truststore or as --tls-ca, not both", ErrBadValue))
	}
	if s.TLSKeystoreAlias != "" && s.TLSKeystore == "" && !r.failed("tls-keystore-alias") {
		r.fail("tls-keystore-alias", fmt.Errorf("%w: --tls-keystore-alias chooses a key of --tls-keystore, which is not given", ErrBadValue))
	}
}

// readSASL reads the SASL options.
func (r *optionReader) readSASL(s *SecurityOptions) {
	mech := strings.ToUpper(strings.TrimSpace(r.str("sasl-mechanism")))
	s.SASLUsername = r.str("sasl-username")
	s.SASLPassword = r.secret("sasl-password")
	r.readOAuth(&s.OAuth)
	r.readAWS(&s.AWS)
	if mech == "" && s.OAuth.given() {
		mech = network.MechanismOAuthBearer // a token source says which
	}
	if mech == "" {
		return
	}
	if !slices.Contains(javaprops.SASLMechanisms(), mech) {
		r.failValue("sasl-mechanism", mech, fmt.Errorf("%w: want %s", ErrBadValue, strings.Join(javaprops.SASLMechanisms(), ", ")))
		return
	}
	s.SASLMechanism = mech
	r.checkMechanismOptions(s)
	switch mech {
	case network.MechanismGSSAPI:
		r.readKerberos(s)
		return
	case network.MechanismOAuthBearer, mskiam.Name:
		return
	}
	if s.SASLUsername == "" {
		r.fail("sasl-username", fmt.Errorf("%w: --sasl-mechanism %s needs a user name", ErrBadValue, mech))
	}
	if s.SASLPassword == "" {
		r.fail("sasl-password", fmt.Errorf("%w: --sasl-mechanism %s needs a password (--sasl-password, KPRODUCE_SASL_PASSWORD or the config file)", ErrBadValue, mech))
	}
}

// secret reads an option holding a secret: an error never shows it.
func (r *optionReader) secret(key string) string {
	s, err := toString(r.vals.Get(key))
	if err != nil {
		r.fail(key, errors.New("one value expected"))
	}
	return s
}

// build makes the TLS configuration and the SASL mechanism, reading the
// PEM files. Every error is a usage error: nothing was sent yet.
func (s *SecurityOptions) build() error {
	if err := s.buildSASL(); err != nil {
		return err
	}
	if !s.TLS {
		return nil
	}
	cfg, err := tlsconf.Config{
		CAFile: s.TLSCA, CertFile: s.TLSCert, KeyFile: s.TLSKey, KeyPassword: s.TLSKeyPassword,
		ServerName: s.TLSServerName, InsecureSkipVerify: s.TLSInsecureSkipVerify, SkipHostnameVerify: s.TLSSkipHostnameVerify,
		Keystore:   tlsconf.Store{File: s.TLSKeystore, Password: s.TLSKeystorePassword, KeyPassword: s.TLSKeyPassword, Alias: s.TLSKeystoreAlias},
		Truststore: tlsconf.Store{File: s.TLSTruststore, Password: s.TLSTruststorePassword},
	}.Build()
	if err != nil {
		return err
	}
	s.TLSConfig = cfg
	return nil
}

// logFields returns the security settings as log fields, passwords
// redacted.
func (s *SecurityOptions) logFields() map[string]any {
	f := map[string]any{"tls": s.TLS}
	if s.TLS {
		f["tls_ca"], f["tls_cert"], f["tls_key"] = s.TLSCA, s.TLSCert, s.TLSKey
		f["tls_server_name"], f["tls_insecure_skip_verify"] = s.TLSServerName, s.TLSInsecureSkipVerify
		f["tls_verify_hostname"] = !s.TLSSkipHostnameVerify && !s.TLSInsecureSkipVerify
		f["tls_keystore"], f["tls_keystore_alias"], f["tls_truststore"] = s.TLSKeystore, s.TLSKeystoreAlias, s.TLSTruststore
		for name, pw := range map[string]string{"tls_key_password": s.TLSKeyPassword,
			"tls_keystore_password": s.TLSKeystorePassword, "tls_truststore_password": s.TLSTruststorePassword} {
			if pw != "" {
				f[name] = javaprops.Redacted
			}
		}
	}
	switch s.SASLMechanism {
	case "":
	case network.MechanismGSSAPI:
		k := s.Kerberos
		f["sasl_mechanism"], f["kerberos_service_name"], f["kerberos_principal"] = s.SASLMechanism, k.ServiceName, k.Principal
		f["kerberos_keytab"], f["kerberos_ccache"], f["kerberos_config"] = k.KeytabFile, k.CCacheFile, k.ConfigFile
	case network.MechanismOAuthBearer:
		f["sasl_mechanism"], f["oauth_token_source"] = s.SASLMechanism, s.OAuth.source()
		f["oauth_token_endpoint"], f["oauth_client_id"], f["oauth_scope"] = javaprops.RedactURLs(s.OAuth.TokenEndpoint), s.OAuth.ClientID, s.OAuth.Scope
		f["oauth_extensions"] = s.OAuth.Extensions
	case mskiam.Name:
		f["sasl_mechanism"], f["aws_region"], f["aws_profile"], f["aws_role_arn"] = s.SASLMechanism, s.AWS.Region, s.AWS.Profile, s.AWS.RoleARN
	default:
		f["sasl_mechanism"], f["sasl_username"], f["sasl_password"] = s.SASLMechanism, s.SASLUsername, javaprops.Redacted
	}
	return f
}
