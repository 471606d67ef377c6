package config

import (
	"fmt"
	"strings"
)

// maxWarningLines is how many line numbers an aggregated warning lists.
const maxWarningLines = 5

// warningList collects warnings as they are found, merging those that
// differ only in the line of the file they are about ("f:1, 7, 9: unknown
// property a; ignored", "... and N more lines" past maxWarningLines) and
// saying a repeated one once, so that a file of a million identical lines
// gives one warning and holds one. The zero value is empty.
type warningList struct {
	order []*warningGroup
	byKey map[string]*warningGroup
}

// warningGroup is one warning and the lines it is about.
type warningGroup struct {
	file, msg string
	lines     []string
	n         int
}

// add records a warning.
func (l *warningList) add(w string) {
	file, line, msg := splitWarningPlace(w)
	key := file + "\x00" + msg
	if l.byKey == nil {
		l.byKey = map[string]*warningGroup{}
	}
	g, ok := l.byKey[key]
	if !ok {
		g = &warningGroup{file: file, msg: msg}
		l.byKey[key] = g
		l.order = append(l.order, g)
	}
	g.n++
	if line != "" && len(g.lines) < maxWarningLines {
		g.lines = append(g.lines, line)
	}
}

// addAll records warnings.
func (l *warningList) addAll(ws []string) {
	for _, w := range ws {
		l.add(w)
	}
}

// list returns the warnings in the order they were first found.
func (l *warningList) list() []string {
	out := make([]string, 0, len(l.order))
	for _, g := range l.order {
		if g.file == "" {
			out = append(out, g.msg)
			continue
		}
		where := g.file + ":" + strings.Join(g.lines, ", ")
		if more := g.n - len(g.lines); more > 0 {
			where += fmt.Sprintf(" and %d more lines", more)
		}
		out = append(out, where+": "+g.msg)
	}
	return out
}

// splitWarningPlace splits "FILE:LINE: message" into its parts; a warning
// about no line of a file is all message.
func splitWarningPlace(w string) (file, line, msg string) {
	for from := 0; ; {
		i := strings.Index(w[from:], ": ")
		if i < 0 {
			return "", "", w
		}
		i += from
		if j := strings.LastIndexByte(w[:i], ':'); j > 0 && isDigits(w[j+1:i]) {
			return w[:j], w[j+1 : i], w[i+2:]
		}
		from = i + 2
	}
}

// isDigits reports whether s is a non-empty run of ASCII digits.
func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
