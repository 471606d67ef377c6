package schema

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// checkRefCycles refuses a JSON Schema in which a chain of subschemas
// applied to the value itself ($ref, allOf, not, if...) comes back to
// where it started: validating a value that reaches it would never end
// (the compiler accepts such a schema; the validator fails each value on
// it). A chain that goes into a part of the value (properties, items...)
// on the way is well-founded: the value gets smaller at each turn. The
// static targets of $recursiveRef and $dynamicRef are followed; where they
// resolve to at validation time is still checked there.
func checkRefCycles(root *jsonschema.Schema) error {
	nodes := reachable(root)
	const (
		unseen = iota
		onPath
		done
	)
	state := make(map[*jsonschema.Schema]int, len(nodes))
	type frame struct {
		s    *jsonschema.Schema
		next []*jsonschema.Schema
	}
	for _, start := range nodes {
		if state[start] != unseen {
			continue
		}
		state[start] = onPath
		path := []frame{{start, inPlace(start)}}
		for len(path) > 0 {
			top := &path[len(path)-1]
			if len(top.next) == 0 {
				state[top.s] = done
				path = path[:len(path)-1]
				continue
			}
			n := top.next[0]
			top.next = top.next[1:]
			switch state[n] {
			case onPath:
				i := slices.IndexFunc(path, func(f frame) bool { return f.s == n })
				steps := make([]string, 0, len(path)-i+1)
				for _, f := range path[i:] {
					steps = append(steps, schemaPlace(f.s))
				}
				return schemaErrorf("reference cycle %s -> %s: it never goes into a part of the value, so validation would not end",
					strings.Join(steps, " -> "), schemaPlace(n))
			case unseen:
				state[n] = onPath
				path = append(path, frame{n, inPlace(n)})
			}
		}
	}
	return nil
}

// schemaPlace is where a subschema is in the schema: "#" and a JSON
// pointer.
func schemaPlace(s *jsonschema.Schema) string {
	return strings.TrimPrefix(s.Location, jsonSchemaURL)
}

// reachable lists the subschemas reachable from root, root's own
// included, in the order of their places.
func reachable(root *jsonschema.Schema) []*jsonschema.Schema {
	seen := map[*jsonschema.Schema]bool{root: true}
	queue := []*jsonschema.Schema{root}
	for i := 0; i < len(queue); i++ {
		for _, n := range append(inPlace(queue[i]), inParts(queue[i])...) {
			if !seen[n] {
				seen[n] = true
				queue = append(queue, n)
			}
		}
	}
	slices.SortFunc(queue, func(a, b *jsonschema.Schema) int { return cmp.Compare(a.Location, b.Location) })
	return queue
}

// inPlace lists the subschemas s applies to the value itself.
func inPlace(s *jsonschema.Schema) []*jsonschema.Schema {
	out := []*jsonschema.Schema{s.Ref, s.RecursiveRef, s.Not, s.If, s.Then, s.Else}
	if s.DynamicRef != nil {
		out = append(out, s.DynamicRef.Ref)
	}
	out = slices.Concat(out, s.AllOf, s.AnyOf, s.OneOf, sortedValues(s.DependentSchemas))
	for _, k := range slices.Sorted(maps.Keys(s.Dependencies)) {
		out = append(out, asSchemas(s.Dependencies[k])...)
	}
	return slices.DeleteFunc(out, func(n *jsonschema.Schema) bool { return n == nil })
}

// inParts lists the subschemas s applies to parts of the value: its
// properties, their names, its items, its decoded content.
func inParts(s *jsonschema.Schema) []*jsonschema.Schema {
	out := slices.Concat([]*jsonschema.Schema{s.PropertyNames, s.UnevaluatedProperties, s.Contains, s.Items2020, s.UnevaluatedItems, s.ContentSchema},
		sortedValues(s.Properties), s.PrefixItems, asSchemas(s.AdditionalProperties), asSchemas(s.Items), asSchemas(s.AdditionalItems))
	for _, n := range s.PatternProperties {
		out = append(out, n)
	}
	return slices.DeleteFunc(out, func(n *jsonschema.Schema) bool { return n == nil })
}

// sortedValues is the values of m in the order of their keys.
func sortedValues(m map[string]*jsonschema.Schema) []*jsonschema.Schema {
	out := make([]*jsonschema.Schema, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, m[k])
	}
	return out
}

// asSchemas is the schemas in one of the compiled schema's loosely typed
// fields (a schema, a list of them, or a bool or names).
func asSchemas(v any) []*jsonschema.Schema {
	switch v := v.(type) {
	case *jsonschema.Schema:
		return []*jsonschema.Schema{v}
	case []*jsonschema.Schema:
		return v
	}
	return nil
}
