package perfcmd

import "strings"

// multiValueFlags are kafka-producer-perf-test's flags that take several
// values after one flag name: --producer-props acks=1 linger.ms=5.
func multiValueFlags() []string { return []string{"producer-props", "command-property"} }

// ExpandArgs rewrites kafka-producer-perf-test's flags of several values
// (--producer-props acks=1 linger.ms=5, and the same with
// --producer-props=acks=1) as one flag a value
// (--producer-props=acks=1 --producer-props=linger.ms=5), which is how a
// repeatable flag is given to kproduce. The values run up to the next word
// that starts with "-"; "--" ends the flags. Other words are left as they
// are.
func ExpandArgs(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		name, first, inline := multiValueFlag(a)
		if name == "" {
			out = append(out, a)
			continue
		}
		if inline {
			out = append(out, "--"+name+"="+first)
		}
		values := 0
		for i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
			i++
			out = append(out, "--"+name+"="+args[i])
			values++
		}
		if !inline && values == 0 {
			out = append(out, a) // no value: the flag parser says so
		}
	}
	return out
}

// multiValueFlag returns the name of the flag of several values a is
// (--producer-props or --producer-props=VALUE), with the value given in
// the same word; name is "" when a is not one.
func multiValueFlag(a string) (name, value string, inline bool) {
	if !strings.HasPrefix(a, "--") {
		return "", "", false
	}
	n, v, hasValue := strings.Cut(a[2:], "=")
	for _, f := range multiValueFlags() {
		if n == f {
			return f, v, hasValue
		}
	}
	return "", "", false
}
