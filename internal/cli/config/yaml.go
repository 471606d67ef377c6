package config

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// The YAML keys of profiles: the named sets of settings, and the one
// used by default (the file's setting of --profile).
const (
	keyProfiles = "profiles"
	keyProfile  = "profile"
)

// addYAML adds a kproduce YAML config: a flat map whose keys are long flag
// names, and under profiles a map of named maps of the same keys. The
// profile named by profile, else by the file's profile key, is applied
// over the top-level keys. An unknown key is an error naming it. Keys are
// read as written (a node walk, not a map decode), so that a key such as
// null is not lost and every value keeps its line.
func (r *resolver) addYAML(path string, data []byte, profile string) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("not a YAML map of options: %w", err)
	}
	if len(doc.Content) == 0 { // an empty file
		return r.applyProfile(path, nil, profile)
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return fmt.Errorf("not a YAML map of options (line %d); a properties file has NAME=VALUE lines", root.Line)
	}
	var profiles *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, vn := root.Content[i], root.Content[i+1]
		if k.Value == keyProfiles {
			if vn.Kind != yaml.MappingNode {
				return fmt.Errorf("line %d: profiles: a map of profile names to settings expected", vn.Line)
			}
			profiles = vn
			continue
		}
		if err := r.addYAMLKey(path, "", k, vn); err != nil {
			return err
		}
	}
	if profile == "" {
		profile, _ = r.file.values[keyProfile].(string)
	}
	return r.applyProfile(path, profiles, strings.TrimSpace(profile))
}

// applyProfile applies the named profile's settings over the file's.
func (r *resolver) applyProfile(path string, profiles *yaml.Node, name string) error {
	if name == "" {
		return nil
	}
	var names []string
	if profiles != nil {
		for i := 0; i+1 < len(profiles.Content); i += 2 {
			k, vn := profiles.Content[i], profiles.Content[i+1]
			names = append(names, k.Value)
			if k.Value != name {
				continue
			}
			if vn.Kind != yaml.MappingNode {
				return fmt.Errorf("line %d: profile %s: a map of settings expected", vn.Line, name)
			}
			r.file.profile = name
			for j := 0; j+1 < len(vn.Content); j += 2 {
				if pk := vn.Content[j]; pk.Value == keyProfile || pk.Value == keyProfiles {
					return fmt.Errorf("line %d: profile %s: a profile cannot name profiles", pk.Line, name)
				}
				if err := r.addYAMLKey(path, name, vn.Content[j], vn.Content[j+1]); err != nil {
					return err
				}
			}
			return nil
		}
	}
	if len(names) == 0 {
		return fmt.Errorf("no profile %q: the file has no profiles key", name)
	}
	slices.Sort(names)
	return fmt.Errorf("no profile %q: the profiles are %s", name, strings.Join(names, ", "))
}

// addYAMLKey adds one key of the file or of profile.
func (r *resolver) addYAMLKey(path, profile string, k, vn *yaml.Node) error {
	spec, ok := lookupSpec(k.Value)
	if k.Kind != yaml.ScalarNode || !ok || spec.NoConfig {
		return fmt.Errorf("line %d: unknown key %q (keys are the long flag names, e.g. brokers, topic, linger%s)",
			k.Line, k.Value, nearestKeyHint(k.Value))
	}
	where := fmt.Sprintf("%s:%d", path, vn.Line)
	if profile != "" {
		where += " (profile " + profile + ")"
	}
	if k.Value == "property" {
		return r.addYAMLProperties(path, vn)
	}
	var value any
	if err := vn.Decode(&value); err != nil {
		return fmt.Errorf("line %d: key %q: %w", vn.Line, k.Value, err)
	}
	if value == nil {
		return nil
	}
	switch value.(type) {
	case map[string]any:
		return fmt.Errorf("line %d: key %q: a value or a list expected, not a map", vn.Line, k.Value)
	case []any:
		if spec.Kind != kindList && spec.Kind != kindArray {
			return fmt.Errorf("line %d: key %q: one value expected, not a list", vn.Line, k.Value)
		}
	}
	r.file.values[k.Value] = value
	r.file.origins[k.Value] = where
	return nil
}

// addYAMLProperties adds the properties of the YAML property key: a map
// of properties, a list of KEY=VALUE, or one KEY=VALUE.
func (r *resolver) addYAMLProperties(path string, vn *yaml.Node) error {
	at := func(n *yaml.Node) string { return fmt.Sprintf("%s:%d", path, n.Line) }
	switch vn.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(vn.Content); i += 2 {
			kn, val := vn.Content[i], vn.Content[i+1]
			if val.Kind != yaml.ScalarNode {
				return fmt.Errorf("line %d: property %s: one value expected", val.Line, kn.Value)
			}
			if err := r.addFileProperty(at(kn), kn.Value, val.Value); err != nil {
				return fmt.Errorf("line %d: %w", kn.Line, err)
			}
		}
		return nil
	case yaml.SequenceNode:
		for _, item := range vn.Content {
			if err := r.addYAMLPropertyItem(at(item), item); err != nil {
				return err
			}
		}
		return nil
	}
	return r.addYAMLPropertyItem(at(vn), vn)
}

// addYAMLPropertyItem adds one KEY=VALUE of the property key.
func (r *resolver) addYAMLPropertyItem(where string, n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: key property: KEY=VALUE expected", n.Line)
	}
	a, err := splitProperty("key property", n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	if err := r.addFileProperty(where, a.name, a.value); err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	return nil
}
