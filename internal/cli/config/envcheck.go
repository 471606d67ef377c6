package config

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
)

// foreignEnv maps other tools' environment variables onto the option
// they would set; kproduce does not read them, and says so when the
// option has no value of its own. (rpk's are read: see readRPKEnv.)
func foreignEnv() map[string]string {
	return map[string]string{"KCAT_CONFIG": "config"}
}

// envWarnings warns about a KPRODUCE_* variable that names no option,
// naming the nearest one, and about another tool's variable kproduce
// does not read when its option has no value but the default.
func (r *resolver) envWarnings() []string {
	var known []string
	for _, o := range optionSpecs() {
		known = append(known, envName(o.Name))
	}
	var warnings []string
	var names []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if !strings.HasPrefix(name, envPrefix+"_") || slices.Contains(known, name) {
			continue
		}
		msg := fmt.Sprintf("environment variable %s is not a kproduce option; ignored", name)
		if near := cmdutil.Nearest(name, known, 3); near != "" {
			msg += fmt.Sprintf(" (did you mean %s?)", near)
		}
		warnings = append(warnings, msg)
	}
	foreign := foreignEnv()
	for _, name := range names {
		key, ok := foreign[name]
		if !ok || os.Getenv(name) == "" {
			continue
		}
		if (key == "config" && r.configFile == "") || (key != "config" && r.origin(key) == "default") {
			warnings = append(warnings, fmt.Sprintf("%s is set, but kproduce reads %s (or --%s); ignored", name, envName(key), key))
		}
	}
	return warnings
}

// nearestKeyHint is ", did you mean X?" for a config file key close to
// an option's name, "" otherwise.
func nearestKeyHint(key string) string {
	var names []string
	for _, o := range optionSpecs() {
		if !o.NoConfig {
			names = append(names, o.Name)
		}
	}
	if near := cmdutil.Nearest(key, append(names, keyProfiles), 2); near != "" {
		return "; did you mean " + near + "?"
	}
	return ""
}
