// Package krb5test runs a real MIT Kerberos KDC for one test: its own
// realm in a temporary directory (kdb5_util), principals and keytabs made
// with kadmin.local, krb5kdc listening on a free port of 127.0.0.1 with a
// krb5.conf and kdc.conf of its own, stopped at the test's cleanup. The
// Debian packages krb5-kdc, krb5-admin-server and krb5-user provide the
// programs; where they are missing the test fails if they could have been
// installed, and is skipped otherwise (kafkatest.RequireTool).
package krb5test

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kproduce/kproduce/internal/kafkatest"
)

// kadminError matches an error line of kadmin.local.
var kadminError = regexp.MustCompile(`(?m)^[a-z_.]+: `)

// Realm is the realm of every test KDC.
const Realm = "KPRODUCE.TEST"

// KDC is a running krb5kdc and its realm.
type KDC struct {
	// Realm is the realm's name; Addr the KDC's host:port (TCP and UDP).
	Realm, Addr string
	// Dir holds the database, the configuration and the keytabs.
	Dir string
	// Conf is the krb5.conf that names this KDC (KRB5_CONFIG for clients).
	Conf string
	// kdcConf is the kdc.conf (KRB5_KDC_PROFILE for the KDC's tools).
	kdcConf string
	cmd     *exec.Cmd
}

// Option changes how Start runs the KDC.
type Option func(*settings)

type settings struct{ clockOffset string }

// ClockOffset runs the KDC with its clock moved by offset (a faketime
// offset such as "+1h"), for the clock skew errors.
func ClockOffset(offset string) Option { return func(s *settings) { s.clockOffset = offset } }

// Start creates a realm and starts its KDC; the test's cleanup stops it.
func Start(t testing.TB, opts ...Option) *KDC {
	t.Helper()
	var set settings
	for _, o := range opts {
		o(&set)
	}
	krb5kdc := kafkatest.RequireTool(t, "krb5kdc", "krb5-kdc")
	kafkatest.RequireTool(t, "kadmin.local", "krb5-admin-server")
	kafkatest.RequireTool(t, "kdb5_util", "krb5-kdc")
	dir := t.TempDir()
	k := &KDC{Realm: Realm, Dir: dir, Conf: filepath.Join(dir, "krb5.conf"), kdcConf: filepath.Join(dir, "kdc.conf")}
	var lastErr error
	for range 5 {
		port, err := freePort()
		if err != nil {
			t.Fatal(err)
		}
		k.Addr = fmt.Sprintf("127.0.0.1:%d", port)
		k.writeConfig(t, port)
		if err := k.createDB(); err != nil {
			t.Fatal(err)
		}
		if lastErr = k.start(t, krb5kdc, set); lastErr == nil {
			return k
		}
	}
	t.Fatalf("krb5kdc did not start: %v", lastErr)
	return nil
}

// freePort returns a port of 127.0.0.1 free for TCP and UDP just now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	_ = l.Close()
	u, err := net.ListenPacket("udp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return freePort()
	}
	_ = u.Close()
	return port, nil
}

// writeConfig writes krb5.conf (what clients read) and kdc.conf.
func (k *KDC) writeConfig(t testing.TB, port int) {
	t.Helper()
	krb5 := fmt.Sprintf(`[libdefaults]
	default_realm = %[1]s
	dns_lookup_kdc = false
	dns_lookup_realm = false
	dns_canonicalize_hostname = false
	rdns = false
	udp_preference_limit = 1
	ticket_lifetime = 1h
	renew_lifetime = 2h
	forwardable = false
	permitted_enctypes = aes256-cts-hmac-sha1-96 aes128-cts-hmac-sha1-96
[realms]
	%[1]s = {
		kdc = %[3]s
	}
[domain_realm]
	localhost = %[1]s
	127.0.0.1 = %[1]s
`, k.Realm, k.Dir, k.Addr)
	kdc := fmt.Sprintf(`[kdcdefaults]
	kdc_listen = 127.0.0.1:%[3]d
	kdc_tcp_listen = 127.0.0.1:%[3]d
[realms]
	%[1]s = {
		database_name = %[2]s/principal
		key_stash_file = %[2]s/stash
		acl_file = %[2]s/kadm5.acl
		max_life = 1h
		max_renewable_life = 2h
		supported_enctypes = aes256-cts-hmac-sha1-96:normal aes128-cts-hmac-sha1-96:normal
		default_principal_flags = +preauth
	}
[logging]
	kdc = FILE:%[2]s/kdc.log
`, k.Realm, k.Dir, port)
	for path, text := range map[string]string{k.Conf: krb5, k.kdcConf: kdc, filepath.Join(k.Dir, "kadm5.acl"): ""} {
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// env is the environment of the realm's tools.
func (k *KDC) env() []string {
	return append(os.Environ(), "KRB5_CONFIG="+k.Conf, "KRB5_KDC_PROFILE="+k.kdcConf)
}

// createDB creates the realm's database, once.
func (k *KDC) createDB() error {
	if _, err := os.Stat(filepath.Join(k.Dir, "principal")); err == nil {
		return nil
	}
	cmd := exec.Command("kdb5_util", "create", "-s", "-r", k.Realm, "-P", "master-"+k.Realm, "-W")
	cmd.Env = k.env()
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("kdb5_util create: %w\n%s", err, out)
	}
	return nil
}

// start runs krb5kdc in the foreground and waits for its TCP port.
func (k *KDC) start(t testing.TB, krb5kdc string, set settings) error {
	args := []string{krb5kdc, "-n", "-r", k.Realm}
	if set.clockOffset != "" {
		faketime := kafkatest.RequireTool(t, "faketime", "faketime")
		args = append([]string{faketime, "-f", set.clockOffset}, args...)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = k.env()
	// Its own process group: faketime runs krb5kdc as a child, and the
	// whole group is stopped at the end.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out := &lockedBuilder{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.Now().Add(20 * time.Second)
	for {
		select {
		case err := <-exited:
			return fmt.Errorf("krb5kdc exited: %v: %s", err, out.String())
		default:
		}
		if c, err := net.DialTimeout("tcp", k.Addr, time.Second); err == nil {
			_ = c.Close()
			break
		}
		if time.Now().After(deadline) {
			killGroup(cmd)
			<-exited
			return fmt.Errorf("krb5kdc does not listen on %s: %s", k.Addr, out.String())
		}
		time.Sleep(20 * time.Millisecond) // polling the port: the KDC says nothing when it is ready
	}
	k.cmd = cmd
	t.Cleanup(func() {
		killGroup(cmd)
		<-exited
	})
	return nil
}

// killGroup kills the process group of cmd.
func killGroup(cmd *exec.Cmd) { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }

// lockedBuilder collects a process's output for an error message.
type lockedBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuilder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuilder) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Stop stops the KDC before the test ends (an unreachable KDC).
func (k *KDC) Stop() {
	if k.cmd != nil && k.cmd.Process != nil {
		killGroup(k.cmd)
	}
}

// kadmin runs one kadmin.local query.
func (k *KDC) kadmin(t testing.TB, query string) {
	t.Helper()
	cmd := exec.Command("kadmin.local", "-r", k.Realm, "-q", query)
	cmd.Env = k.env()
	out, err := cmd.CombinedOutput()
	// kadmin.local exits 0 after a failed query: its errors are lines
	// that start with the failing command ("add_principal: ...").
	if err != nil || kadminError.Match(out) {
		t.Fatalf("kadmin.local -q %q: %v\n%s", query, err, out)
	}
}

// Principal returns name@REALM.
func (k *KDC) Principal(name string) string { return name + "@" + k.Realm }

// AddPrincipal creates the principal name (in the realm) with a random
// key, and extra kadmin addprinc options (-maxlife "10 seconds").
func (k *KDC) AddPrincipal(t testing.TB, name string, extra ...string) {
	t.Helper()
	k.kadmin(t, strings.Join(append([]string{"addprinc", "-randkey"}, append(extra, k.Principal(name))...), " "))
}

// Keytab writes the current keys of the principals into a new keytab
// file and returns its path.
func (k *KDC) Keytab(t testing.TB, file string, names ...string) string {
	t.Helper()
	path := filepath.Join(k.Dir, file)
	for _, n := range names {
		k.kadmin(t, fmt.Sprintf("ktadd -k %s -norandkey %s", path, k.Principal(n)))
	}
	return path
}

// RandomizeKey gives the principal a new key: keytabs written before
// hold a wrong one.
func (k *KDC) RandomizeKey(t testing.TB, name string) {
	t.Helper()
	k.kadmin(t, "cpw -randkey "+k.Principal(name))
}

// Kinit gets a ticket for the principal with its keytab into the ticket
// cache file ccache, as a user's kinit does; extra are kinit options
// (-l 5s).
func (k *KDC) Kinit(t testing.TB, name, keytab, ccache string, extra ...string) {
	t.Helper()
	kinit := kafkatest.RequireTool(t, "kinit", "krb5-user")
	args := append(append([]string{}, extra...), "-k", "-t", keytab, "-c", "FILE:"+ccache, k.Principal(name))
	cmd := exec.Command(kinit, args...)
	cmd.Env = k.env()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("kinit %v: %v\n%s", args, err, out)
	}
}

// Env returns the environment a client of this realm runs with: KRB5_CONFIG
// naming Conf, plus kv.
func (k *KDC) Env(kv ...string) []string {
	return append(append(os.Environ(), "KRB5_CONFIG="+k.Conf), kv...)
}

// DeletePrincipal removes the principal from the realm: keytabs written
// before name a principal the KDC does not know.
func (k *KDC) DeletePrincipal(t testing.TB, name string) {
	t.Helper()
	k.kadmin(t, "delprinc -force "+k.Principal(name))
}
