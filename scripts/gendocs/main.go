// Command gendocs writes kproduce's reference pages (Markdown and man
// pages) from its command tree: go generate ./internal/cli, or
// go run ./scripts/gendocs -out docs.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/kproduce/kproduce/internal/cli/docgen"
)

func main() {
	out := flag.String("out", "docs", "`directory` to write reference/ and man/ into")
	flag.Parse()
	if err := docgen.GenerateDocs(*out); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
