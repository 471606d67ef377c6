package config

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kproduce/kproduce/internal/cli/config/javaprops"
	"github.com/kproduce/kproduce/internal/fsutil"
)

// readConfigFile reads a --config file: a Java .properties file by its
// extension, YAML otherwise.
func readConfigFile(path string) (*configLayer, error) {
	data, err := fsutil.ReadFile(path, maxConfigFileBytes)
	if err != nil {
		return nil, fmt.Errorf("config file: %w", err)
	}
	layer := &configLayer{values: map[string]any{}, security: map[string]string{}}
	if strings.EqualFold(filepath.Ext(path), ".properties") {
		err = layer.addProperties(path, string(data))
	} else {
		err = layer.addYAML(data)
	}
	if err != nil {
		return nil, fmt.Errorf("config file %s: %w", path, err)
	}
	return layer, nil
}

// addProperties adds the properties of a Java producer config file.
func (l *configLayer) addProperties(path, text string) error {
	props, err := javaprops.ParseProperties(text)
	if err != nil {
		return err
	}
	for _, p := range props {
		where := fmt.Sprintf("%s:%d", path, p.Line)
		if err := l.addJava(where, p.Key, p.Value); err != nil {
			return fmt.Errorf("line %d: %w", p.Line, err)
		}
	}
	return nil
}

// addJava adds one Java property at the config file level.
func (l *configLayer) addJava(where, name, value string) error {
	kind, key, val, err := javaprops.Map(name, value)
	switch {
	case err != nil:
		return err
	case kind == javaprops.Mapped:
		l.values[key] = val
	case kind == javaprops.Security:
		l.security[key] = val
	default:
		l.warnings = append(l.warnings, javaprops.Warning(kind, where, name))
	}
	return nil
}

// addYAML adds a kproduce YAML config: a flat map whose keys are long flag
// names. An unknown key is an error naming it. Keys are read as written (a
// node walk, not a map decode), so that a key such as null is not lost.
func (l *configLayer) addYAML(data []byte) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("not a YAML map of options: %w", err)
	}
	if len(doc.Content) == 0 { // an empty file
		return nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return fmt.Errorf("not a YAML map of options (line %d)", root.Line)
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, vn := root.Content[i], root.Content[i+1]
		spec, ok := lookupSpec(k.Value)
		if k.Kind != yaml.ScalarNode || !ok || spec.NoConfig {
			return fmt.Errorf("line %d: unknown key %q (keys are the long flag names, e.g. brokers, topic, linger)", k.Line, k.Value)
		}
		var value any
		if err := vn.Decode(&value); err != nil {
			return fmt.Errorf("line %d: key %q: %w", vn.Line, k.Value, err)
		}
		if err := l.addYAMLValue(k.Value, value); err != nil {
			return fmt.Errorf("line %d: %w", vn.Line, err)
		}
	}
	return nil
}

// addYAMLValue adds one YAML key. property takes a map of Java properties
// or a list of KEY=VALUE; other keys take a value or a list.
func (l *configLayer) addYAMLValue(key string, value any) error {
	if value == nil {
		return nil
	}
	if key == "property" {
		return l.addYAMLProperties(value)
	}
	switch value.(type) {
	case map[string]any:
		return fmt.Errorf("key %q: a value or a list expected, not a map", key)
	case []any:
		if spec, _ := lookupSpec(key); spec.Kind != kindList && spec.Kind != kindArray {
			return fmt.Errorf("key %q: one value expected, not a list", key)
		}
	}
	l.values[key] = value
	return nil
}

// addYAMLProperties adds the Java properties of the YAML property key.
func (l *configLayer) addYAMLProperties(value any) error {
	where := "config key property"
	if m, ok := value.(map[string]any); ok {
		for _, name := range slices.Sorted(maps.Keys(m)) {
			s, err := toString(m[name])
			if err != nil {
				return fmt.Errorf("property %s: %w", name, err)
			}
			if err := l.addJava(where, name, s); err != nil {
				return err
			}
		}
		return nil
	}
	list, err := toList(value, false)
	if err != nil {
		return fmt.Errorf("key property: %w", err)
	}
	for _, p := range list {
		name, val, ok := strings.Cut(p, "=")
		if !ok || strings.TrimSpace(name) == "" {
			return fmt.Errorf("key property: %q: %w: want KEY=VALUE", p, ErrBadValue)
		}
		if err := l.addJava(where, strings.TrimSpace(name), val); err != nil {
			return err
		}
	}
	return nil
}
