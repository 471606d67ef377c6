package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// Another tool's habit can make a word a FILE argument: rpk takes the
// topic as an argument (rpk topic produce TOPIC), and kaf, kafkactl and
// rpk name the verb (kaf produce TOPIC). kproduce reads every argument as
// an input file; when the first one does not exist, these hints say how
// it was read and what to write instead.

// otherToolVerbs are the verbs of other tools' produce commands.
var otherToolVerbs = map[string]bool{"produce": true, "producer": true, "topic": true, "publish": true, "send": true, "write": true}

// VerbFileHint says that a FILE argument named like another tool's verb
// (produce, topic, ...) was read as an input file; "" for another name.
func VerbFileHint(name string) string {
	if !otherToolVerbs[name] {
		return ""
	}
	return fmt.Sprintf("%q was read as an input file: kproduce has no %s subcommand, it produces without one: kproduce -t TOPIC [FILE...]", name, name)
}

// missingTopicHint says what the first FILE argument that does not exist
// may have meant when no topic is given: another tool's verb, or the
// topic itself (suggesting -t WORD). "" when files has none such.
func missingTopicHint(files []string) string {
	if len(files) == 0 || files[0] == "-" {
		return ""
	}
	name := files[0]
	if _, err := os.Stat(name); !errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	if hint := VerbFileHint(name); hint != "" {
		return hint
	}
	if !legalTopicName(name) {
		return ""
	}
	return fmt.Sprintf("%q was read as an input file, and there is no such file: to produce to topic %s, give -t %s", name, name, name)
}

// legalTopicName reports whether name could be a Kafka topic: 1 to 249
// of [a-zA-Z0-9._-], neither "." nor "..".
func legalTopicName(name string) bool {
	if name == "" || len(name) > 249 || name == "." || name == ".." {
		return false
	}
	for i := range len(name) {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
