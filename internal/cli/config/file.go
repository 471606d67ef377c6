package config

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kproduce/kproduce/internal/cli/config/javaprops"
	"github.com/kproduce/kproduce/internal/fsutil"
)

// configLayer is what the config file contributes.
type configLayer struct {
	values map[string]any // option key -> value
	// origins says where each value came from: "file:line", with the
	// profile when one gave it.
	origins map[string]string
	// profile is the profile applied, "" for none.
	profile string
}

// newConfigLayer returns an empty layer.
func newConfigLayer() *configLayer {
	return &configLayer{values: map[string]any{}, origins: map[string]string{}}
}

// The formats of a config file.
const (
	fileYAML       = "YAML"
	fileProperties = "properties"
)

// readConfig reads the config file, if there is one (see configPath),
// into the file layer and viper, with the profile --profile,
// KPRODUCE_PROFILE or the file's profile key names.
func (r *resolver) readConfig() error {
	profile, err := toString(r.vals.Get("profile"))
	if err != nil {
		return fmt.Errorf("--profile: %w", err)
	}
	profile = strings.TrimSpace(profile)
	path, origin, err := r.configPath()
	if err != nil {
		return err
	}
	if path == "" {
		if profile != "" {
			return fmt.Errorf("--profile %s: no config file to take it from (--config, %s, or %s)", profile, envName("config"), DefaultConfigPath())
		}
		return nil
	}
	data, err := fsutil.ReadFile(path, maxConfigFileBytes)
	if err != nil && origin == originDefault && !fsutil.IsTooLarge(err) {
		r.warnings.add(unreadableDefault(path, err))
		return nil
	}
	if err != nil {
		return fmt.Errorf("config file: %w", err)
	}
	r.configFile, r.configOrigin = path, origin
	switch configFormat(path, data) {
	case fileProperties:
		if profile != "" {
			return fmt.Errorf("--profile %s: %s is a properties file, which has no profiles (they are in a YAML config file)", profile, path)
		}
		err = r.addProperties(path, string(data))
	default:
		err = r.addYAML(path, data, profile)
	}
	if err != nil {
		return fmt.Errorf("config file %s: %w", path, err)
	}
	if err := r.vals.v.MergeConfigMap(r.file.values); err != nil {
		return fmt.Errorf("config file %s: %w", path, err)
	}
	return nil
}

// configFormat tells a properties file (Java's producer.properties,
// kcat's librdkafka file) from a kproduce YAML file. The content decides
// (see contentFormat); the extension (.properties, .conf or .cfg; .yaml
// or .yml) only breaks a tie, for a file with no setting; YAML otherwise.
func configFormat(path string, data []byte) string {
	if format, ok := contentFormat(data); ok {
		return format
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".properties", ".conf", ".cfg":
		return fileProperties
	}
	return fileYAML
}

// contentFormat is the format the first setting of data shows: in a
// properties file NAME=VALUE, "NAME VALUE" or a dotted name
// (bootstrap.servers: ...), in YAML a long flag name followed by a colon,
// "- item", "---" or a %YAML directive. ok is false when data holds no
// setting (empty, or comments only).
func contentFormat(data []byte) (format string, ok bool) {
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		if line == "---" || strings.HasPrefix(line, "%YAML") || strings.HasPrefix(line, "- ") {
			return fileYAML, true
		}
		end := strings.IndexAny(line, "=: \t")
		if end < 0 {
			return fileYAML, true
		}
		rest := strings.TrimLeft(line[end:], " \t")
		switch {
		case rest == "" || rest[0] == '=':
			return fileProperties, true
		case rest[0] == ':':
			if strings.Contains(line[:end], ".") {
				return fileProperties, true
			}
			return fileYAML, true
		}
		return fileProperties, true // Java's "name value"
	}
	return "", false
}

// addProperties adds the properties of a Java or librdkafka properties
// file.
func (r *resolver) addProperties(path, text string) error {
	return javaprops.EachProperty(text, func(p javaprops.Property) error {
		if err := r.addFileProperty(path+":"+strconv.Itoa(p.Line), p.Key, p.Value); err != nil {
			return fmt.Errorf("line %d: %w", p.Line, err)
		}
		return nil
	})
}

// addFileProperty adds one property at the config file level.
func (r *resolver) addFileProperty(where, name, value string) error {
	m, err := r.mapProperty(where, name, value)
	if err != nil {
		return err
	}
	switch m.Kind {
	case javaprops.Mapped:
		value := m.Value
		if earlier, ok := r.file.values[m.Key]; ok && accumulates(m.Key) {
			value = fmt.Sprint(earlier) + "," + value
		}
		r.file.values[m.Key] = value
		r.file.origins[m.Key] = where + " (" + name + ")"
	case javaprops.Security, javaprops.Reader:
		r.props.add(m.Kind, name, m.Value, where+" ("+name+")", false)
	}
	if m.Warning != "" {
		r.warnings.add(m.Warning)
	}
	return nil
}
