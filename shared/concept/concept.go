// Package concept holds the regulatory concept captured from a chat turn and
// its deterministic canonical id (DOMAIN:JURISDICTION:KIND).
package concept

import (
	"strings"
)

// Concept is one normalised capture_concepts entry plus its canonical id. It carries no user data.
type Concept struct {
	ID           string   `json:"id"`
	Domain       string   `json:"domain"`
	Kind         string   `json:"kind"`
	Jurisdiction string   `json:"jurisdiction"`
	PrefLabel    string   `json:"prefLabel"`
	AltLabels    []string `json:"altLabels,omitempty"`
	Definition   string   `json:"definition,omitempty"`
	SourceURLs   []string `json:"sourceUrls,omitempty"`
}

// IDPart normalises one part of a canonical id: trimmed, every run of
// characters outside [A-Za-z0-9-] (white space and "_" included) to one
// "_", upper-cased.
func IDPart(s, fallback string) string {
	s = strings.TrimSpace(s)
	b := make([]byte, 0, len(s))
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z':
			b = append(b, byte(r)-'a'+'A')
		case r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-':
			b = append(b, byte(r))
		case len(b) == 0 || b[len(b)-1] != '_':
			b = append(b, '_')
		}
	}
	if len(b) == 0 || string(b) == "_" {
		return fallback
	}
	return string(b)
}

// collapseSpace trims s and writes each run of ASCII white space in it as
// one space.
func collapseSpace(s string) string {
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if !isSpace(s[i]) {
			b = append(b, s[i])
			continue
		}
		if len(b) > 0 && b[len(b)-1] != ' ' {
			b = append(b, ' ')
		}
	}
	return strings.TrimSpace(string(b))
}

// CanonicalID returns DOMAIN:JURISDICTION:KIND, defaulting missing parts to
// GENERIC / GLOBAL, so the same concept always maps to the same graph node.
func CanonicalID(domain, jurisdiction, kind string) string {
	return IDPart(domain, "GENERIC") + ":" + IDPart(jurisdiction, "GLOBAL") + ":" + IDPart(kind, "GENERIC")
}

// Normalize trims and collapses whitespace in every text field, de-duplicates
// labels and URLs (case-insensitively for labels) and fills in the id.
func Normalize(c Concept) Concept {
	clean := collapseSpace
	out := Concept{
		Domain:       IDPart(c.Domain, "GENERIC"),
		Kind:         IDPart(c.Kind, "GENERIC"),
		Jurisdiction: IDPart(c.Jurisdiction, "GLOBAL"),
		PrefLabel:    clean(c.PrefLabel),
		Definition:   clean(c.Definition),
	}
	out.ID = out.Domain + ":" + out.Jurisdiction + ":" + out.Kind
	if out.PrefLabel == "" {
		out.PrefLabel = out.Kind
	}
	seen := map[string]bool{strings.ToLower(out.PrefLabel): true}
	for _, l := range c.AltLabels {
		l = clean(l)
		if l == "" || seen[strings.ToLower(l)] {
			continue
		}
		seen[strings.ToLower(l)] = true
		out.AltLabels = append(out.AltLabels, l)
	}
	seenURL := map[string]bool{}
	for _, u := range c.SourceURLs {
		u = strings.TrimSpace(u)
		if u == "" || seenURL[u] {
			continue
		}
		seenURL[u] = true
		out.SourceURLs = append(out.SourceURLs, u)
	}
	return out
}
