package config

import (
	"fmt"
	"os"
	"strings"

	"github.com/kproduce/kproduce/internal/cli/config/javaprops"
)

// rpkEnvName is the environment variable rpk reads for its -X name:
// RPK_ and the name upper-cased, '.' as '_' (tls.ca: RPK_TLS_CA).
func rpkEnvName(name string) string {
	return "RPK_" + strings.ToUpper(strings.ReplaceAll(name, ".", "_"))
}

// rpkEnv is one of rpk's environment variables that is set: its -X name
// and value.
type rpkEnv struct{ env, name, value string }

// rpkEnvironment returns rpk's environment variables that are set and not
// empty, for every rpk -X name of the property table (RPK_BROKERS,
// RPK_TLS_ENABLED, RPK_TLS_CA, ..., RPK_SASL_MECHANISM, RPK_USER,
// RPK_PASS), in the table's order.
func rpkEnvironment() []rpkEnv {
	var out []rpkEnv
	for _, p := range javaprops.Table() {
		for _, name := range p.Rpk {
			env := rpkEnvName(name)
			if v := os.Getenv(env); v != "" {
				out = append(out, rpkEnv{env: env, name: name, value: v})
			}
		}
	}
	return out
}

// readRPKEnv applies rpk's environment variables as their -X names: each
// sets what the property sets, below kproduce's own KPRODUCE_* variables
// and above the config file (as in rpk, where the environment beats
// rpk.yaml). Call it after readConfig.
func (r *resolver) readRPKEnv() error {
	values := map[string]any{}
	for _, e := range rpkEnvironment() {
		origin := "env " + e.env
		m, err := javaprops.Map(origin, e.name, e.value)
		if err != nil {
			return err
		}
		switch m.Kind {
		case javaprops.Mapped:
			values[m.Key] = m.Value
			r.file.origins[m.Key] = origin
		case javaprops.Security:
			r.props.add(m.Kind, e.name, m.Value, origin, false)
		}
		if m.Warning != "" {
			r.warnings.add(m.Warning)
		}
	}
	if len(values) == 0 {
		return nil
	}
	if err := r.vals.v.MergeConfigMap(values); err != nil {
		return fmt.Errorf("rpk environment: %w", err)
	}
	return nil
}
