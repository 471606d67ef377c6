package e2esasl

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jcmturner/gokrb5/v8/keytab"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/kafkatest/krb5test"
	"github.com/kproduce/kproduce/internal/kafkatest/saslfront"
)

// kerberosLongRun is a realm whose client tickets live four seconds, and
// a cluster behind a GSSAPI front with 2s sessions that accepts no
// ticket more than a second past its end: a 10s stream lives only if
// kproduce obtains its tickets again (keytab) or renews them (ticket
// cache), and re-authenticates every connection with the new ones.
type kerberosLongRun struct {
	kdc          *krb5test.KDC
	clientKeytab string
	env          *env
}

func newKerberosLongRun(t *testing.T, sessionLifetime time.Duration) *kerberosLongRun {
	t.Helper()
	k := krb5test.Start(t)
	k.AddPrincipal(t, "client", "-maxlife", `"4 seconds"`, "-maxrenewlife", `"5 minutes"`)
	k.AddPrincipal(t, "kafka/127.0.0.1")
	kt, err := keytab.Load(k.Keytab(t, "kafka.keytab", "kafka/127.0.0.1"))
	require.NoError(t, err)
	gssapi := saslfront.GSSAPI(saslfront.GSSAPIConfig{Keytab: kt, MaxClockSkew: time.Second})
	plain := saslfront.Plain(map[string]string{readerUser: readerPass})
	e := newEnvWith(t, nil, saslfront.Config{Mechanisms: []saslfront.Mechanism{gssapi, plain}, SessionLifetime: sessionLifetime}, 3)
	t.Setenv("KRB5_CONFIG", k.Conf)
	t.Setenv("KRB5CCNAME", "FILE:"+filepath.Join(t.TempDir(), "no-ccache"))
	return &kerberosLongRun{kdc: k, clientKeytab: k.Keytab(t, "client.keytab", "client"), env: e}
}

// issued counts the tickets the KDC issued to the client, by what for
// (krbtgt: a login or a renewal; kafka: a service ticket), from its log.
func (k *kerberosLongRun) issued(t *testing.T, request, service string) int {
	t.Helper()
	log, err := os.ReadFile(filepath.Join(k.kdc.Dir, "kdc.log"))
	require.NoError(t, err)
	re := regexp.MustCompile(request + ` .*: ISSUE: .*client@` + krb5test.Realm + ` for ` + regexp.QuoteMeta(service))
	return len(re.FindAll(log, -1))
}

const (
	kerberosLongRecords = 500 // 10s at 50 a second
	kerberosLongMin     = 5
)

// With a keytab, kproduce logs in again before its ticket-granting ticket
// ends and gets new service tickets, re-authenticating each connection
// with them.
func TestKerberosKeytabLongRun(t *testing.T) {
	k := newKerberosLongRun(t, 2*time.Second)
	reauthRun(t, k.env, k.kdc.Principal("client"), kerberosLongRecords, 50, kerberosLongMin,
		"--sasl-mechanism", "GSSAPI", "--kerberos-keytab", k.clientKeytab, "--kerberos-principal", k.kdc.Principal("client"))
	logins := k.issued(t, "AS_REQ", "krbtgt/")
	services := k.issued(t, "TGS_REQ", "kafka/127.0.0.1@")
	t.Logf("KDC: %d logins, %d service tickets", logins, services)
	assert.GreaterOrEqual(t, logins, 3, "a login every 4s")
	assert.GreaterOrEqual(t, services, 3, "service tickets obtained again")
}

// With the renewable ticket of a kinit, kproduce renews it before it ends.
func TestKerberosTicketCacheLongRun(t *testing.T) {
	k := newKerberosLongRun(t, 2*time.Second)
	cc := filepath.Join(t.TempDir(), "ccache")
	k.kdc.Kinit(t, "client", k.clientKeytab, cc, "-l", "4s", "-r", "5m")
	t.Setenv("KRB5CCNAME", "FILE:"+cc)
	reauthRun(t, k.env, k.kdc.Principal("client"), kerberosLongRecords, 50, kerberosLongMin, "--sasl-mechanism", "GSSAPI")
	logins := k.issued(t, "AS_REQ", "krbtgt/")
	renewals := k.issued(t, "TGS_REQ", "krbtgt/")
	t.Logf("KDC: %d logins (kinit's), %d renewals", logins, renewals)
	assert.Equal(t, 1, logins, "only kinit logged in")
	assert.GreaterOrEqual(t, renewals, 2, "the ticket renewed every 4s")
}

// Without sessions to start (no re-authentication asked for, every
// connection open), the ticket of a kinit is renewed all the same, in the
// background, before it ends: a connection made later still finds it
// valid.
func TestKerberosTicketRenewedInTheBackground(t *testing.T) {
	k := newKerberosLongRun(t, 0)
	cc := filepath.Join(t.TempDir(), "ccache")
	k.kdc.Kinit(t, "client", k.clientKeytab, cc, "-l", "4s", "-r", "5m")
	t.Setenv("KRB5CCNAME", "FILE:"+cc)
	res := run(t, strings.NewReader(keyedLines(300)), "-b", k.env.brokers(), "-t", "t", "-K", ":", "-o", "none", "--rate", "50",
		"--sasl-mechanism", "GSSAPI")
	require.Equal(t, 0, res.Code, "stderr:\n%s", res.Stderr)
	checkExactlyOnce(t, k.env, 300)
	renewals := k.issued(t, "TGS_REQ", "krbtgt/")
	t.Logf("KDC: %d renewals in a 6s run", renewals)
	assert.Positive(t, renewals, "renewed at 80%% of its 4s")
}
