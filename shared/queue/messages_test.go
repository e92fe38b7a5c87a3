package queue

import (
	"errors"
	"testing"

	"regintel/shared/concept"
)

func TestDecodeConceptsCaptured(t *testing.T) {
	env, err := NewEnvelope(TypeConceptsCaptured, ConceptsCaptured{Concepts: []concept.Concept{{ID: "TAX:IE:VAT", Domain: "TAX", Jurisdiction: "IE", Kind: "VAT"}}})
	if err != nil {
		t.Fatal(err)
	}
	p, err := DecodeConceptsCaptured(env)
	if err != nil || len(p.Concepts) != 1 || p.Concepts[0].ID != "TAX:IE:VAT" {
		t.Fatalf("p=%+v err=%v", p, err)
	}
	for name, env := range map[string]Envelope{
		"empty":      {Type: TypeConceptsCaptured, Payload: []byte(`{"concepts":[]}`)},
		"bad json":   {Type: TypeConceptsCaptured, Payload: []byte(`{"concepts":`)},
		"wrong type": {Type: TypeEnrichmentRequested, Payload: []byte(`{"concepts":[{"id":"X"}]}`)},
	} {
		if _, err := DecodeConceptsCaptured(env); !errors.Is(err, ErrInvalidPayload) {
			t.Errorf("%s: err = %v, want ErrInvalidPayload", name, err)
		}
	}
	if _, err := DecodeEnrichmentRequested(Envelope{Type: TypeEnrichmentRequested, Payload: []byte(`{"domain":"TAX"}`)}); !errors.Is(err, ErrInvalidPayload) {
		t.Errorf("enrichment without concept id: %v", err)
	}
}
