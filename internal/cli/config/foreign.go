package config

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/kproduce/kproduce/internal/cli/config/javaprops"
)

// PropertyHelp handles kcat's -X list (and -X help): when a -X on the
// command line asks for it, it writes the property table to w and
// reports true. -X dump is a usage error naming kproduce config.
func PropertyHelp(fs *pflag.FlagSet, w io.Writer) (bool, error) {
	f := fs.Lookup("property")
	if f == nil || !f.Changed {
		return false, nil
	}
	for _, p := range f.Value.(pflag.SliceValue).GetSlice() {
		switch strings.TrimSpace(p) {
		case "help", "list":
			return true, javaprops.WriteHelp(w)
		case "dump":
			return false, fmt.Errorf("-X dump: %w: kproduce config prints the effective settings and where each came from", ErrBadValue)
		}
	}
	return false, nil
}

// foreignFlags are other tools' flags kproduce does not take, with what
// to use instead.
func foreignFlags() map[string]string {
	consume := "kproduce only produces: consume with kcat -C, rpk topic consume or kafka-console-consumer"
	return map[string]string{
		"-C": consume, "-G": consume, "-Q": "kproduce does not query offsets (kcat -Q)",
		"-L": "kproduce metadata lists brokers, topics and partitions", "-J": "JSON input is -f json (kcat -J output is read as is)",
		"-T": "kproduce reports each record on stdout; -o '%v\\n' prints each value delivered",
		"-d": "--log-level debug (or -v, -vv)", "-V": "kproduce --version", "-u": "reports are written as records are delivered",
		"-E": "kproduce reports each failed record and goes on; the exit status says whether all were delivered",
		"-e": consume, "-s": "kcat's -s picks a consumer's deserializer: to produce Avro, Protobuf or JSON Schema records, give --schema-registry URL and --value-schema FILE (or --value-schema-id N)",
		"-r":                  "the Schema Registry is --schema-registry URL (kcat's -r serves its consumer's -s avro)",
		"--consumer-property": consume, "--from-beginning": consume, "--group": consume,
		"--key-serializer":   "kproduce sends bytes as they are, or encodes JSON keys with --key-schema and --schema-registry",
		"--value-serializer": "kproduce sends bytes as they are, or encodes JSON values with --value-schema and --schema-registry",
		"--print-offsets":    "reports are on by default (-o text, json or a template)",
	}
}

// FlagHint says what to use instead of another tool's flag kproduce does
// not take, "" when it knows none.
func FlagHint(flag string) string {
	return foreignFlags()[flag]
}
