package config

import (
	"fmt"
	"os"
	"strings"

	"github.com/kproduce/kproduce/pkg/network"
)

// readKerberos reads the GSSAPI options, resolving the files as MIT
// Kerberos does: krb5.conf from --kerberos-config, else KRB5_CONFIG (its
// first existing file), else /etc/krb5.conf; the ticket cache from
// --kerberos-ccache, else KRB5CCNAME, else /tmp/krb5cc_UID. Only FILE:
// ticket caches can be read.
func (r *optionReader) readKerberos(s *SecurityOptions) {
	k := network.GSSAPIConfig{
		ServiceName:          strings.TrimSpace(r.str("kerberos-service-name")),
		Principal:            strings.TrimSpace(r.str("kerberos-principal")),
		KeytabFile:           strings.TrimSpace(r.str("kerberos-keytab")),
		ConfigFile:           strings.TrimSpace(r.str("kerberos-config")),
		MinTimeBeforeRelogin: r.duration("kerberos-min-time-before-relogin", false),
		// The KDC exchanges of a session start count against the
		// connection setup, as the Java client's do.
		Timeout: network.DefaultConnectionSetupTimeout,
	}
	if k.ConfigFile == "" {
		k.ConfigFile = "/etc/krb5.conf"
		for _, f := range strings.Split(os.Getenv("KRB5_CONFIG"), ":") {
			if _, err := os.Stat(f); f != "" && err == nil {
				k.ConfigFile = f
				break
			}
		}
	}
	if k.KeytabFile == "" {
		cc := strings.TrimSpace(r.str("kerberos-ccache"))
		if cc == "" {
			cc = os.Getenv("KRB5CCNAME")
		}
		if cc == "" {
			cc = fmt.Sprintf("/tmp/krb5cc_%d", os.Getuid())
		}
		typ, path, found := strings.Cut(cc, ":")
		switch {
		case !found || strings.HasPrefix(cc, "/"):
			path = cc
		case typ != "FILE":
			r.fail("kerberos-ccache", fmt.Errorf("%w: ticket cache %s: kproduce reads FILE: caches only: kinit -c FILE:/tmp/krb5cc_kproduce,"+
				" then KRB5CCNAME=FILE:/tmp/krb5cc_kproduce; or give --kerberos-keytab", ErrBadValue, cc))
		}
		k.CCacheFile = path
	}
	s.Kerberos = k
}
