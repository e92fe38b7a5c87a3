package enrich

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"regintel/shared/llm"
)

// ToolName is the extraction tool the model must call.
const ToolName = "record_regulatory_facts"

// Limits the schema enforces on what the model returns, so one answer cannot
// flood the graph or carry whole pages as "quotes".
const (
	MaxFactsPerKind = 25
	MaxQuoteLen     = 300
	MaxNameLen      = 120
	MaxExcerptLen   = 300
)

// TimelineKinds are the timeline meanings the tool accepts; each maps to a
// relationship type from the concept (TimelineRelationship).
var TimelineKinds = []string{"lookback", "filing_deadline", "payment_deadline", "waiting_period", "claim_window", "other"}

// TimelineUnits are the units a timeline window may use.
var TimelineUnits = []string{"days", "weeks", "months", "years"}

// Facts are the validated arguments of one record_regulatory_facts call.
type Facts struct {
	// Concept is the job's concept as the documents name it; its Name is
	// "" when they do not.
	Concept         ConceptName      `json:"concept"`
	Rates           []Rate           `json:"rates"`
	Thresholds      []Threshold      `json:"thresholds"`
	Timelines       []Timeline       `json:"timelines"`
	Sections        []Section        `json:"sections"`
	RelatedConcepts []RelatedConcept `json:"related_concepts"`
}

// Evidence is what every fact carries: the document it came from and a short
// passage copied from that document, checked before anything is written.
type Evidence struct {
	SourceURL string `json:"source_url"`
	Quote     string `json:"quote"`
}

// ConceptName is the name the documents give the job's concept, with the
// passage that names it: the official text that lets a captured concept be
// shared.
type ConceptName struct {
	Name string `json:"name"`
	Evidence
}

// Rate is a percentage rate ("standard rate", 23).
type Rate struct {
	Name      string  `json:"name"`
	Percent   float64 `json:"percent"`
	AppliesTo string  `json:"applies_to"`
	// EffectiveFrom is the date the quote says the value takes effect
	// (YYYY-MM-DD), or "" when it says none.
	EffectiveFrom string `json:"effective_from"`
	Evidence
}

// Threshold is an amount that switches a rule on or off (a registration
// threshold, an exemption limit).
type Threshold struct {
	Name      string  `json:"name"`
	Amount    float64 `json:"amount"`
	Currency  string  `json:"currency"`
	Period    string  `json:"period"`
	AppliesTo string  `json:"applies_to"`
	// EffectiveFrom: see Rate.
	EffectiveFrom string `json:"effective_from"`
	Evidence
}

// Timeline is a window or deadline: a lookback of 4 years, a filing deadline
// of 23 days.
type Timeline struct {
	Name   string `json:"name"`
	Kind   string `json:"kind"`
	Window int    `json:"window"`
	Unit   string `json:"unit"`
	Evidence
}

// Section is a provision of an act or a numbered part of guidance.
type Section struct {
	ID      string `json:"id"`
	Title   string `json:"title"`
	Act     string `json:"act"`
	Excerpt string `json:"excerpt"`
	Evidence
}

// RelatedConcept is another regulatory concept the sources link to this one.
type RelatedConcept struct {
	Name         string `json:"name"`
	Domain       string `json:"domain"`
	Kind         string `json:"kind"`
	Jurisdiction string `json:"jurisdiction"`
	Evidence
}

// toolSchema is the JSON Schema of the tool arguments. Every property is
// required and no others are allowed, so the same schema works with
// providers' strict modes; optional text is sent as "".
func toolSchema() map[string]any {
	props := factKindSchemas()
	props["concept"] = conceptNameSchema()
	return map[string]any{
		"type":                 "object",
		"additionalProperties": false,
		"required":             []string{"concept", "rates", "thresholds", "timelines", "sections", "related_concepts"},
		"properties":           props,
	}
}

// factKindSchemas is the schema of each list of facts, by its property name.
func factKindSchemas() map[string]any {
	str := func(maxLen int) map[string]any { return map[string]any{"type": "string", "maxLength": maxLen} }
	name := map[string]any{"type": "string", "minLength": 1, "maxLength": MaxNameLen}
	effectiveFrom := map[string]any{"type": "string", "pattern": `^(\d{4}-\d{2}-\d{2})?$`,
		"description": "the date the quote states this value takes effect, as YYYY-MM-DD; empty when the quote states no such date (never guess one)"}
	return map[string]any{
		"rates": factListSchema(map[string]any{
			"name":           name,
			"percent":        map[string]any{"type": "number", "minimum": 0, "maximum": 100},
			"applies_to":     str(300),
			"effective_from": effectiveFrom,
		}),
		"thresholds": factListSchema(map[string]any{
			"name":           name,
			"amount":         map[string]any{"type": "number", "minimum": 0},
			"currency":       map[string]any{"type": "string", "pattern": "^([A-Z]{3})?$", "description": "ISO 4217 code, or empty"},
			"period":         str(40),
			"applies_to":     str(300),
			"effective_from": effectiveFrom,
		}),
		"timelines": factListSchema(map[string]any{
			"name":   name,
			"kind":   map[string]any{"type": "string", "enum": TimelineKinds},
			"window": map[string]any{"type": "integer", "minimum": 0, "maximum": 10000},
			"unit":   map[string]any{"type": "string", "enum": TimelineUnits},
		}),
		"sections": factListSchema(map[string]any{
			"id":      map[string]any{"type": "string", "minLength": 1, "maxLength": 40, "description": "section number, e.g. 46(1)"},
			"title":   str(MaxNameLen),
			"act":     str(MaxNameLen),
			"excerpt": str(MaxExcerptLen),
		}),
		"related_concepts": factListSchema(map[string]any{
			"name":         name,
			"domain":       map[string]any{"type": "string", "minLength": 1, "maxLength": 40},
			"kind":         map[string]any{"type": "string", "minLength": 1, "maxLength": 60},
			"jurisdiction": map[string]any{"type": "string", "maxLength": 10, "description": "e.g. IE, UK, EU; empty for the concept's own"},
		}),
	}
}

// factListSchema is a list of facts with props, each carrying its evidence:
// the source URL and a verbatim quote.
func factListSchema(props map[string]any) map[string]any {
	props["source_url"] = map[string]any{"type": "string", "minLength": 1, "maxLength": 2000, "description": "URL of the document the fact is taken from, exactly as given in its document header"}
	props["quote"] = map[string]any{"type": "string", "minLength": 3, "maxLength": MaxQuoteLen, "description": "a short passage copied verbatim from that document that states the fact"}
	required := make([]string, 0, len(props))
	for k := range props {
		required = append(required, k)
	}
	return map[string]any{
		"type": "array", "maxItems": MaxFactsPerKind,
		"items": map[string]any{"type": "object", "additionalProperties": false, "required": sortedStrings(required), "properties": props},
	}
}

// conceptNameSchema is the schema of Facts.Concept: the name may be empty,
// for documents that do not name the concept.
func conceptNameSchema() map[string]any {
	return map[string]any{
		"type": "object", "additionalProperties": false, "required": []string{"name", "quote", "source_url"},
		"description": "the concept's name exactly as a document writes it, that document's URL and a quote containing the name; all empty when no document names it",
		"properties": map[string]any{
			"name":       map[string]any{"type": "string", "maxLength": MaxNameLen},
			"source_url": map[string]any{"type": "string", "maxLength": 2000},
			"quote":      map[string]any{"type": "string", "maxLength": MaxQuoteLen},
		},
	}
}

// Tool is the extraction tool offered to the model.
func Tool() llm.Tool {
	return llm.Tool{
		Name: ToolName,
		Description: "Record the regulatory facts (rates, thresholds, timelines, sections, related concepts) stated in the official documents. " +
			"Every fact must cite the URL of its document and quote the passage that states it, verbatim.",
		Parameters: toolSchema(),
	}
}

// compiledSchema is the tool schema compiled once for validating arguments.
var compiledSchema = func() *jsonschema.Schema {
	raw, err := json.Marshal(toolSchema())
	if err != nil {
		panic(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		panic(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(ToolName+".schema.json", doc); err != nil {
		panic(err)
	}
	return c.MustCompile(ToolName + ".schema.json")
}()

// ErrInvalidArguments marks tool arguments that are not JSON or do not match
// the schema.
var ErrInvalidArguments = errors.New("extraction tool arguments invalid")

// ParseFacts validates raw tool arguments against the schema and decodes
// them. Nothing from a non-conforming call is used.
func ParseFacts(raw json.RawMessage) (Facts, error) {
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return Facts{}, fmt.Errorf("%w: not JSON", ErrInvalidArguments)
	}
	if err := compiledSchema.Validate(doc); err != nil {
		// The validation error names schema locations, never the values.
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			return Facts{}, fmt.Errorf("%w: /%s", ErrInvalidArguments, strings.Join(firstLeaf(ve).InstanceLocation, "/"))
		}
		return Facts{}, fmt.Errorf("%w: %v", ErrInvalidArguments, err)
	}
	var f Facts
	if err := json.Unmarshal(raw, &f); err != nil {
		return Facts{}, fmt.Errorf("%w: %v", ErrInvalidArguments, err)
	}
	return f, nil
}

func firstLeaf(ve *jsonschema.ValidationError) *jsonschema.ValidationError {
	for len(ve.Causes) > 0 {
		ve = ve.Causes[0]
	}
	return ve
}
