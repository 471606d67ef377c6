package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// DefaultConfigPath is where kproduce looks for its config file when
// neither --config nor KPRODUCE_CONFIG names one:
// $XDG_CONFIG_HOME/kproduce/config.yaml, ~/.config/kproduce/config.yaml
// without XDG_CONFIG_HOME. It is "" when neither is known.
func DefaultConfigPath() string {
	dir := os.Getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "kproduce", "config.yaml")
}

// configPath returns the config file to read and how it was chosen:
// --config, else KPRODUCE_CONFIG, else DefaultConfigPath when that file
// exists. An empty --config or KPRODUCE_CONFIG reads none.
func (r *resolver) configPath() (path, origin string, err error) {
	if r.vals.flagChanged("config") {
		return strings.TrimSpace(r.vals.fs.Lookup("config").Value.String()), "flag --config", nil
	}
	if v, ok := os.LookupEnv(envName("config")); ok {
		return strings.TrimSpace(v), "env " + envName("config"), nil
	}
	def := DefaultConfigPath()
	if def == "" {
		return "", "", nil
	}
	st, err := os.Stat(def)
	switch {
	case os.IsNotExist(err):
		return "", "", nil
	case err != nil:
		r.warnings.add(unreadableDefault(def, err))
		return "", "", nil
	case st.IsDir():
		r.warnings.add(unreadableDefault(def, fmt.Errorf("%s is a directory", def)))
		return "", "", nil
	}
	return def, originDefault, nil
}

// originDefault is the origin of a config file found at DefaultConfigPath.
const originDefault = "default location"

// unreadableDefault is the warning about a default config file that
// cannot be read: it is not one the user named (HOME may be another
// user's), so the run goes on without it.
func unreadableDefault(path string, err error) string {
	return fmt.Sprintf("the default config file %s cannot be read (%v); none read (--config or %s names one)", path, err, envName("config"))
}

// envName is the environment variable of an option: KPRODUCE_ and its
// name in upper case, '-' as '_'.
func envName(key string) string {
	return envPrefix + "_" + strings.ToUpper(strings.ReplaceAll(key, "-", "_"))
}
