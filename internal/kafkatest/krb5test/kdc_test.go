package krb5test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestKDC: MIT's own kinit gets a ticket from the realm with a keytab
// kadmin.local wrote, and klist shows it.
func TestKDC(t *testing.T) {
	k := Start(t)
	k.AddPrincipal(t, "client")
	kt := k.Keytab(t, "client.keytab", "client")
	cc := filepath.Join(t.TempDir(), "cc")
	k.Kinit(t, "client", kt, cc)
	cmd := exec.Command("klist", "-c", "FILE:"+cc)
	cmd.Env = k.Env()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("klist: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "krbtgt/"+Realm+"@"+Realm) || !strings.Contains(string(out), k.Principal("client")) {
		t.Fatalf("klist shows no ticket of client:\n%s", out)
	}
}
