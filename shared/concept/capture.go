package concept

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"regintel/shared/strictjson"
)

// CaptureToolName is the tool through which the chat model names the
// regulatory concepts of a turn.
const CaptureToolName = "capture_concepts"

// MaxConceptsPerTurn bounds what one tool call can make the engine write.
const MaxConceptsPerTurn = 20

// ParseCapture validates capture_concepts arguments and returns the
// normalised concepts. Entries missing a required field are skipped and
// counted in skipped; arguments that are not the expected shape are an error.
func ParseCapture(args json.RawMessage) (concepts []Concept, skipped int, err error) {
	concepts, skipped, _, err = ParseCaptureChecked(args, nil)
	return concepts, skipped, err
}

// ParseCaptureChecked is ParseCapture with check (when not nil) applied to
// each entry exactly as the model wrote it, before anything is computed
// from it: an entry check refuses is left out and its error returned in
// rejections (write.CheckCaptured is the graph's check; its errors never
// hold the value).
func ParseCaptureChecked(args json.RawMessage, check func(raw Concept) error) (concepts []Concept, skipped int, rejections []error, err error) {
	var payload struct {
		Concepts []struct {
			Domain       *string  `json:"domain"`
			Kind         *string  `json:"kind"`
			Jurisdiction *string  `json:"jurisdiction"`
			PrefLabel    *string  `json:"prefLabel"`
			AltLabels    []string `json:"altLabels"`
			Definition   string   `json:"definition"`
			SourceURLs   []string `json:"sourceUrls"`
		} `json:"concepts"`
	}
	if err := strictjson.Decode(args, &payload); err != nil {
		return nil, 0, nil, fmt.Errorf("capture_concepts arguments are not valid: %w", err)
	}
	if payload.Concepts == nil {
		return nil, 0, nil, errors.New("capture_concepts arguments lack the concepts array")
	}
	seen := map[string]bool{}
	for _, c := range payload.Concepts {
		if c.Domain == nil || c.Kind == nil || c.Jurisdiction == nil || c.PrefLabel == nil ||
			strings.TrimSpace(*c.Kind) == "" || strings.TrimSpace(*c.PrefLabel) == "" {
			skipped++
			continue
		}
		raw := Concept{
			Domain: *c.Domain, Kind: *c.Kind, Jurisdiction: *c.Jurisdiction, PrefLabel: *c.PrefLabel,
			AltLabels: c.AltLabels, Definition: c.Definition, SourceURLs: c.SourceURLs,
		}
		if check != nil {
			if err := check(raw); err != nil {
				rejections = append(rejections, err)
				continue
			}
		}
		n := Normalize(raw)
		if seen[n.ID] {
			continue
		}
		if len(concepts) == MaxConceptsPerTurn {
			skipped++
			continue
		}
		seen[n.ID] = true
		concepts = append(concepts, n)
	}
	return concepts, skipped, rejections, nil
}
