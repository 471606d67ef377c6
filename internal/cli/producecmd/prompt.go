package producecmd

import (
	"fmt"
	"io"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/cli/input"
)

// printPrompt tells a user typing at a terminal that kproduce reads
// records there (kafka-console-producer shows a prompt): one line on
// stderr when stdin is one of the inputs and a terminal.
func printPrompt(stderr io.Writer, stdin io.Reader, cfg *input.Config, inputs []input.Input) {
	if !cmdutil.IsTerminalReader(stdin) {
		return
	}
	for _, in := range inputs {
		if in.Name != "-" {
			continue
		}
		what := "one record per line"
		switch cfg.Format {
		case input.FormatJSON:
			what = "one JSON object per line"
		case input.FormatFile:
			what = "all of it is one record"
		case input.FormatLayout:
			what = "as " + cfg.Layout.String() + " says"
		}
		_, _ = fmt.Fprintf(stderr, "kproduce: reading records from the terminal, %s (Ctrl-D to finish)\n", what)
		return
	}
}
