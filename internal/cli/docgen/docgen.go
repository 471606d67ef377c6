package docgen

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/kproduce/kproduce/internal/cli"
	"github.com/kproduce/kproduce/internal/cli/cmdutil"
)

// manDate is the date the man pages carry. It is fixed, so that the pages
// change only when the commands do; raise it with a release.
var manDate = time.Date(2026, time.December, 1, 0, 0, 0, 0, time.UTC)

// GenerateDocs writes the reference pages of every command, generated
// from the command tree: Markdown under dir/reference and man pages under
// dir/man. Files already there are replaced.
func GenerateDocs(dir string) error {
	root := cli.NewRootCommand(cmdutil.Streams{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard})
	disableAutoGenTags(root)
	md := filepath.Join(dir, "reference")
	man := filepath.Join(dir, "man")
	for _, d := range []string{md, man} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return fmt.Errorf("docs: %w", err)
		}
	}
	if err := doc.GenMarkdownTree(root, md); err != nil {
		return fmt.Errorf("docs: markdown: %w", err)
	}
	date := manDate
	header := &doc.GenManHeader{Title: "KPRODUCE", Section: "1", Source: "kproduce", Manual: "kproduce manual", Date: &date}
	if err := doc.GenManTree(root, header, man); err != nil {
		return fmt.Errorf("docs: man pages: %w", err)
	}
	return nil
}

// disableAutoGenTags leaves the generation date out of every page.
func disableAutoGenTags(cmd *cobra.Command) {
	cmd.DisableAutoGenTag = true
	for _, c := range cmd.Commands() {
		disableAutoGenTags(c)
	}
}
