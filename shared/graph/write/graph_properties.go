package write

import (
	"slices"

	"regintel/shared/graph"
)

// The graph's own model (graph.NodeProperties: provenance, a fact's valid
// time) is part of the per-label whitelist, so the guard accepts what the
// stores and the curated dataset write.
func init() {
	for label, keys := range graph.NodeProperties {
		for _, k := range keys {
			if !slices.Contains(NodeProperties[label], k) {
				NodeProperties[label] = append(NodeProperties[label], k)
			}
		}
	}
}
