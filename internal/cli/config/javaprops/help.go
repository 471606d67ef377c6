package javaprops

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// helpIntro opens kproduce -X help.
const helpIntro = `Properties kproduce reads with -X NAME=VALUE (also --producer-property,
--command-property), from a properties --config file (Java's
producer.properties, kcat's librdkafka file) and from the YAML key
property. The Java client's names come first, then librdkafka's (kcat)
and rpk's.
A property counts as the option it sets; an option's own flag wins.
`

// helpSection is a section of the help: the rows of some kinds.
type helpSection struct {
	title string
	kinds []Kind
	// schema: the Schema Registry rows, which have a section of their own.
	schema bool
}

// helpSections are the sections of the help, in order.
func helpSections() []helpSection {
	return []helpSection{
		{"Producer settings", []Kind{Mapped}, false},
		{"Schema Registry (Confluent's schema console producers' --property, rpk's -X registry.*)", []Kind{Mapped, Accepted}, true},
		{"Security (security.protocol, or kproduce's --tls and --sasl-mechanism, decide whether the ssl.* and sasl.* properties apply)", []Kind{Security}, false},
		{"kafka-console-producer's line reader (--property, --reader-property): a line is headers, key and value", []Kind{Reader}, false},
		{"Accepted without effect (a value that would change where records go is refused)", []Kind{Accepted}, false},
		{"No equivalent in kproduce: one warning, no effect", []Kind{Knob}, false},
	}
}

// WriteHelp writes kproduce -X help: every name of the table, the option
// it sets and its meaning.
func WriteHelp(w io.Writer) error {
	var b strings.Builder
	b.WriteString(helpIntro)
	table := Table()
	for _, sec := range helpSections() {
		fmt.Fprintf(&b, "\n%s:\n", sec.title)
		for _, p := range table {
			if !slices.Contains(sec.kinds, p.Kind) || p.Schema != sec.schema {
				continue
			}
			fmt.Fprintf(&b, "  %s\n      ", helpNames(p))
			if p.Option != "" {
				fmt.Fprintf(&b, "--%s: ", strings.ReplaceAll(p.Option, ", ", ", --"))
			}
			b.WriteString(p.Meaning)
			if p.Example != "" && p.Kind != Knob {
				fmt.Fprintf(&b, " (e.g. %s=%s)", p.Names()[0], p.Example)
			}
			b.WriteByte('\n')
		}
	}
	b.WriteString("\nOther names are warned about and ignored; other ssl.* and sasl.* names have no effect (a warning).\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// helpNames lists a row's names: Java's, then librdkafka's and rpk's
// own.
func helpNames(p Setting) string {
	var parts, also []string
	for _, tool := range []struct {
		name  string
		names []string
	}{{"librdkafka", p.Librdkafka}, {"rpk", p.Rpk}} {
		var own []string
		for _, n := range tool.names {
			if slices.Contains(p.Java, n) {
				also = append(also, tool.name)
			} else {
				own = append(own, n)
			}
		}
		if len(own) > 0 {
			parts = append(parts, tool.name+": "+strings.Join(own, ", "))
		}
	}
	if len(p.Java) > 0 {
		java := strings.Join(p.Java, ", ")
		if len(also) > 0 {
			java += " (also " + strings.Join(slices.Compact(also), ", ") + ")"
		}
		parts = append([]string{java}, parts...)
	}
	return strings.Join(parts, "; ")
}
