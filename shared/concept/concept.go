// Package concept holds the regulatory concept captured from a chat turn and
// its deterministic canonical id (DOMAIN:JURISDICTION:KIND).
package concept

import (
	"regexp"
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

var (
	whitespace  = regexp.MustCompile(`\s+`)
	disallowed  = regexp.MustCompile(`[^A-Za-z0-9_-]`)
	repeatedSep = regexp.MustCompile(`_+`)
)

// IDPart normalises one part of a canonical id: trimmed, whitespace to "_",
// characters outside [A-Za-z0-9_-] to "_", repeated "_" collapsed, upper-cased.
func IDPart(s, fallback string) string {
	s = strings.TrimSpace(s)
	s = whitespace.ReplaceAllString(s, "_")
	s = disallowed.ReplaceAllString(s, "_")
	s = repeatedSep.ReplaceAllString(s, "_")
	s = strings.ToUpper(s)
	if s == "" || s == "_" {
		return fallback
	}
	return s
}

// CanonicalID returns DOMAIN:JURISDICTION:KIND, defaulting missing parts to
// GENERIC / GLOBAL, so the same concept always maps to the same graph node.
func CanonicalID(domain, jurisdiction, kind string) string {
	return IDPart(domain, "GENERIC") + ":" + IDPart(jurisdiction, "GLOBAL") + ":" + IDPart(kind, "GENERIC")
}

// Normalize trims and collapses whitespace in every text field, de-duplicates
// labels and URLs (case-insensitively for labels) and fills in the id.
func Normalize(c Concept) Concept {
	clean := func(s string) string { return strings.TrimSpace(whitespace.ReplaceAllString(s, " ")) }
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
