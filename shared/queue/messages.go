package queue

import (
	"encoding/json"
	"errors"
	"fmt"

	"regintel/shared/concept"
)

// ConceptsCaptured is the concepts.captured payload: the normalised concepts
// of one chat turn and the id of the tenant whose turn captured them, which
// the resolver counts against the tenant's daily quota of new shared nodes
// and enrichment jobs. It deliberately has no user or conversation id and
// no chat text: the graph side never needs them and must never see them.
type ConceptsCaptured struct {
	TenantID string            `json:"tenantId,omitempty"`
	Concepts []concept.Concept `json:"concepts"`
}

// EnrichmentRequested is the enrichment.requested payload: fetch official
// sources for one concept and upsert the detail found.
type EnrichmentRequested struct {
	ConceptID    string   `json:"conceptId"`
	Domain       string   `json:"domain"`
	Kind         string   `json:"kind"`
	Jurisdiction string   `json:"jurisdiction"`
	SourceURLs   []string `json:"sourceUrls,omitempty"`
	// Held marks a captured concept of a kind outside the vocabulary, which
	// has no node: the job makes one only when an official page names it,
	// with the id the page's wording gives (write.Result.Held). Its kind is
	// a tenant's model's text: it stays in this message, never in a log.
	Held bool `json:"held,omitempty"`
}

// MaxConceptsPerMessage bounds one concepts.captured message; a turn never
// captures more, and SQS messages are limited to 256 KiB.
const MaxConceptsPerMessage = 50

// ErrInvalidPayload marks a message that can never be processed (bad JSON,
// wrong type, missing fields); consumers send it to the dead-letter queue
// instead of retrying.
var ErrInvalidPayload = errors.New("invalid message payload")

// DecodeConceptsCaptured parses and validates a concepts.captured envelope's
// payload. Errors wrap ErrInvalidPayload.
func DecodeConceptsCaptured(env Envelope) (ConceptsCaptured, error) {
	var p ConceptsCaptured
	if env.Type != TypeConceptsCaptured {
		return p, fmt.Errorf("%w: type %q is not %s", ErrInvalidPayload, env.Type, TypeConceptsCaptured)
	}
	if err := json.Unmarshal(env.Payload, &p); err != nil {
		return p, fmt.Errorf("%w: %v", ErrInvalidPayload, err)
	}
	if len(p.Concepts) == 0 {
		return p, fmt.Errorf("%w: no concepts", ErrInvalidPayload)
	}
	if len(p.Concepts) > MaxConceptsPerMessage {
		return p, fmt.Errorf("%w: %d concepts, at most %d", ErrInvalidPayload, len(p.Concepts), MaxConceptsPerMessage)
	}
	return p, nil
}

// DecodeEnrichmentRequested parses and validates an enrichment.requested
// envelope's payload. Errors wrap ErrInvalidPayload.
func DecodeEnrichmentRequested(env Envelope) (EnrichmentRequested, error) {
	var p EnrichmentRequested
	if env.Type != TypeEnrichmentRequested {
		return p, fmt.Errorf("%w: type %q is not %s", ErrInvalidPayload, env.Type, TypeEnrichmentRequested)
	}
	if err := json.Unmarshal(env.Payload, &p); err != nil {
		return p, fmt.Errorf("%w: %v", ErrInvalidPayload, err)
	}
	if p.ConceptID == "" {
		return p, fmt.Errorf("%w: no conceptId", ErrInvalidPayload)
	}
	return p, nil
}
