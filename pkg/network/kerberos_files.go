package network

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/jcmturner/gokrb5/v8/config"
	"github.com/jcmturner/gokrb5/v8/credentials"
	"github.com/jcmturner/gokrb5/v8/iana/nametype"
	"github.com/jcmturner/gokrb5/v8/keytab"
	"github.com/jcmturner/gokrb5/v8/messages"
	"github.com/jcmturner/gokrb5/v8/types"
)

// maxKerberosFileBytes bounds krb5.conf, a keytab and a ticket cache.
const maxKerberosFileBytes = 16 << 20

// readKerberosFile reads one of the Kerberos files with a size bound.
func readKerberosFile(path, what string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxKerberosFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read %s %s: %w", what, path, err)
	}
	if len(data) > maxKerberosFileBytes {
		return nil, fmt.Errorf("%s %s is larger than %d bytes", what, path, maxKerberosFileBytes)
	}
	return data, nil
}

// loadKrb5Conf reads krb5.conf.
func loadKrb5Conf(path string) (*config.Config, error) {
	data, err := readKerberosFile(path, "krb5.conf")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: no krb5.conf at %s: give --kerberos-config FILE or set KRB5_CONFIG (it names the realm and its KDCs)",
			ErrKerberosConfig, path)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrKerberosConfig, err)
	}
	return parseKrb5Conf(path, data)
}

// parseKrb5Conf parses the content of the krb5.conf at path.
func parseKrb5Conf(path string, data []byte) (*config.Config, error) {
	var cfg *config.Config
	err := unmarshalKerberosFile(func(data []byte) (err error) {
		cfg, err = config.NewFromString(string(data))
		return err
	}, data)
	if err != nil {
		var unsupported config.UnsupportedDirective
		if !errors.As(err, &unsupported) {
			return nil, fmt.Errorf("%w: krb5.conf %s: %w", ErrKerberosConfig, path, err)
		}
	}
	return cfg, nil
}

// parsePrincipal splits name[/instance]@REALM; a principal without a
// realm is in defaultRealm.
func parsePrincipal(s, defaultRealm string) (types.PrincipalName, string, error) {
	name, realm := s, defaultRealm
	if i := strings.LastIndexByte(s, '@'); i >= 0 {
		name, realm = s[:i], s[i+1:]
	}
	if name == "" || realm == "" || slices.Contains(strings.Split(name, "/"), "") {
		return types.PrincipalName{}, "", fmt.Errorf("%w: principal %q: want name@REALM (or name, with the default_realm of krb5.conf)",
			ErrKerberosConfig, s)
	}
	return types.NewPrincipalName(nametype.KRB_NT_PRINCIPAL, name), realm, nil
}

// loadKeytab reads a keytab and checks it holds a key of the principal;
// an empty principal means the keytab's first one.
func loadKeytab(path, principal, defaultRealm string) (*keytab.Keytab, types.PrincipalName, string, error) {
	data, err := readKerberosFile(path, "keytab")
	if err != nil {
		return nil, types.PrincipalName{}, "", fmt.Errorf("%w: --kerberos-keytab: %w", ErrKerberosConfig, err)
	}
	return parseKeytab(path, data, principal, defaultRealm)
}

// parseKeytab parses the content of the keytab at path and checks it
// holds a key of the principal.
func parseKeytab(path string, data []byte, principal, defaultRealm string) (*keytab.Keytab, types.PrincipalName, string, error) {
	if len(data) < 2 || data[0] != 5 || data[1] != 1 && data[1] != 2 {
		return nil, types.PrincipalName{}, "", fmt.Errorf("%w: %s is not a keytab (no keytab header of version 1 or 2)", ErrKerberosConfig, path)
	}
	kt := keytab.New()
	// The parser's errors quote the entry's bytes, its key among them:
	// they are not shown.
	if err := unmarshalKerberosFile(kt.Unmarshal, data); err != nil {
		return nil, types.PrincipalName{}, "", fmt.Errorf("%w: the keytab %s is truncated or malformed: an entry does not fit its length",
			ErrKerberosConfig, path)
	}
	if len(kt.Entries) == 0 {
		return nil, types.PrincipalName{}, "", fmt.Errorf("%w: the keytab %s holds no key", ErrKerberosConfig, path)
	}
	if principal == "" {
		e := kt.Entries[0].Principal
		principal = strings.Join(e.Components, "/") + "@" + e.Realm
	}
	cname, realm, err := parsePrincipal(principal, defaultRealm)
	if err != nil {
		return nil, types.PrincipalName{}, "", err
	}
	var held []string
	for _, e := range kt.Entries {
		p := strings.Join(e.Principal.Components, "/") + "@" + e.Principal.Realm
		if p == principalString(cname, realm) {
			return kt, cname, realm, nil
		}
		if !slices.Contains(held, p) {
			held = append(held, p)
		}
	}
	return nil, types.PrincipalName{}, "", fmt.Errorf("%w: the keytab %s holds no key of %s; it holds %s: check --kerberos-principal",
		ErrKerberosConfig, path, principalString(cname, realm), strings.Join(held, ", "))
}

// readCCacheTGT reads the ticket-granting ticket of a ticket cache file
// and the cache's principal.
func readCCacheTGT(path string) (*kerberosTicket, types.PrincipalName, string, error) {
	data, err := readKerberosFile(path, "ticket cache")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, types.PrincipalName{}, "", fmt.Errorf("%w: no keytab given and no ticket cache at %s:"+
			" run kinit PRINCIPAL first, or give --kerberos-keytab FILE (and --kerberos-principal)", ErrKerberosNoCredentials, path)
	}
	if err != nil {
		return nil, types.PrincipalName{}, "", fmt.Errorf("%w: %w", ErrKerberosConfig, err)
	}
	return parseCCacheTGT(path, data)
}

// parseCCacheTGT parses the content of the ticket cache at path.
func parseCCacheTGT(path string, data []byte) (*kerberosTicket, types.PrincipalName, string, error) {
	cc := new(credentials.CCache)
	err := checkCCacheCounts(data)
	if err == nil {
		err = unmarshalKerberosFile(cc.Unmarshal, data)
	}
	if err != nil {
		return nil, types.PrincipalName{}, "", fmt.Errorf("%w: %s is not a ticket cache kproduce reads (a FILE: cache of format 4): %w",
			ErrKerberosConfig, path, err)
	}
	realm := cc.GetClientRealm()
	cname := cc.GetClientPrincipalName()
	krbtgt := types.PrincipalName{NameType: nametype.KRB_NT_SRV_INST, NameString: []string{"krbtgt", realm}}
	cred, ok := cc.GetEntry(krbtgt)
	if !ok {
		return nil, types.PrincipalName{}, "", fmt.Errorf("%w: the ticket cache %s holds no ticket-granting ticket of realm %s: run kinit %s",
			ErrKerberosNoCredentials, path, realm, principalString(cname, realm))
	}
	var tkt messages.Ticket
	if err := tkt.Unmarshal(cred.Ticket); err != nil {
		return nil, types.PrincipalName{}, "", fmt.Errorf("%w: the ticket cache %s: its ticket cannot be read: %w", ErrKerberosConfig, path, err)
	}
	start := cred.StartTime
	if start.IsZero() {
		start = cred.AuthTime
	}
	return &kerberosTicket{ticket: tkt, key: cred.Key, start: start, end: cred.EndTime, renewTill: cred.RenewTill}, cname, realm, nil
}

// unmarshalKerberosFile runs a parser of a Kerberos file, whose index
// errors on malformed data are turned into an error.
func unmarshalKerberosFile(unmarshal func([]byte) error, data []byte) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("malformed: its parser failed (%v)", r)
		}
	}()
	return unmarshal(data)
}
