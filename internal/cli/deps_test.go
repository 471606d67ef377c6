package cli

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// module is kproduce's module path.
const module = "github.com/kproduce/kproduce"

// noteSources opens every Go file of the module's packages, so that go
// test's cache, which knows nothing of what the go list child process
// read, counts them as inputs of this test: a change to any import reruns
// it.
func noteSources(t *testing.T) {
	t.Helper()
	for _, dir := range []string{"../../cmd", "../../internal", "../../pkg"} {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
				return err
			}
			_, err = os.ReadFile(path)
			return err
		})
		require.NoError(t, err)
	}
}

// deps returns the packages pkg depends on, directly or not (go list
// -deps), without its tests.
func deps(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", module+"/"+pkg).Output()
	require.NoError(t, err, "go list -deps %s", pkg)
	return strings.Fields(string(out))
}

// TestLayeredImports keeps the layers of the command line apart: the
// packages that read input, print reports, load TLS material and decode
// escapes know nothing of flags or configuration (no cobra, pflag, viper
// nor the config package), cmdutil, which every command imports, uses
// no other package of kproduce, and the tests' helpers (kafkatest) use
// none but cmdutil.
func TestLayeredImports(t *testing.T) {
	noteSources(t)
	forbidden := func(d string) bool {
		for _, m := range []string{"github.com/spf13/cobra", "github.com/spf13/pflag", "github.com/spf13/viper"} {
			if d == m || strings.HasPrefix(d, m+"/") {
				return true
			}
		}
		return d == module+"/internal/cli/config"
	}
	for _, pkg := range []string{"internal/cli/input", "internal/cli/report", "internal/tlsconf", "internal/escape", "internal/fsutil", "internal/cli/config/javaprops"} {
		t.Run(pkg, func(t *testing.T) {
			for _, d := range deps(t, pkg) {
				assert.False(t, forbidden(d), "%s depends on %s", pkg, d)
			}
		})
	}
	t.Run("internal/cli/cmdutil", func(t *testing.T) {
		for _, d := range deps(t, "internal/cli/cmdutil") {
			if strings.HasPrefix(d, module+"/") {
				assert.Equal(t, module+"/internal/cli/cmdutil", d, "cmdutil depends on %s", d)
			}
		}
	})
	t.Run("internal/kafkatest", func(t *testing.T) {
		for _, d := range deps(t, "internal/kafkatest") {
			if strings.HasPrefix(d, module+"/") {
				assert.Contains(t, []string{module + "/internal/kafkatest", module + "/internal/cli/cmdutil"}, d,
					"kafkatest depends on %s: the tests of that package could not use it", d)
			}
		}
	})
	t.Run("library", func(t *testing.T) {
		for _, pkg := range []string{"pkg/sender", "pkg/admin"} {
			for _, d := range deps(t, pkg) {
				assert.False(t, strings.HasPrefix(d, module+"/internal/"), "%s depends on %s", pkg, d)
			}
		}
	})
}

// TestBinaryLinksNoGenerators keeps what only the docs generator needs out
// of the kproduce binary: cobra's doc package and the Markdown renderer
// below it cost every run their package initialisation.
func TestBinaryLinksNoGenerators(t *testing.T) {
	noteSources(t)
	for _, d := range deps(t, "cmd/kproduce") {
		for _, m := range []string{"github.com/spf13/cobra/doc", "github.com/cpuguy83/go-md2man", "github.com/russross/blackfriday",
			module + "/internal/cli/docgen"} {
			assert.False(t, d == m || strings.HasPrefix(d, m+"/"), "kproduce links %s", d)
		}
	}
}
