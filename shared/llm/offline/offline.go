// Package offline is a deterministic llm.Provider that needs no key and no
// network, so the whole chat loop runs on any machine. It behaves like a
// tool-using model: on the first call of a turn that offers capture_concepts
// and mentions terms from its embedded lexicon.json, it only calls
// capture_concepts with those concepts and ends; once the tool output has
// come back (or when no tool is offered, or nothing was recognised) it
// streams a short, honest answer word by word saying it is the offline model
// and naming the regulatory terms it recognised in the latest user question.
// It never echoes the user's own words, so no personal data (a PPSN or NINO,
// say) can leak into the answer or the graph.
package offline

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"regintel/shared/llm"
)

const (
	// Name is the provider name reported in metadata.
	Name = "offline"
	// ModelName is the model reported in metadata.
	ModelName = "offline-lexicon-v1"
	// CaptureConceptsTool is the tool the offline model calls when offered.
	CaptureConceptsTool = "capture_concepts"
)

// Concept is one lexicon entry, in the shape of a capture_concepts entry.
type Concept struct {
	Domain       string   `json:"domain"`
	Kind         string   `json:"kind"`
	Jurisdiction string   `json:"jurisdiction"`
	PrefLabel    string   `json:"prefLabel"`
	AltLabels    []string `json:"altLabels"`
	Definition   string   `json:"definition,omitempty"`
	SourceURLs   []string `json:"sourceUrls,omitempty"`
}

type lexiconEntry struct {
	Concept
	// Acronyms match case-sensitively ("CAT" but not "cat"); phrases do not.
	Acronyms []string `json:"acronyms"`
	Phrases  []string `json:"phrases"`
}

//go:embed lexicon.json
var lexiconJSON []byte

// term is an acronym (matched as written) or a phrase (matched in any
// ASCII case), each only as whole words.
type term struct {
	text     string // a phrase in lower case
	caseFold bool
	entry    int
}

type lexicon struct {
	entries []lexiconEntry
	terms   []term
}

func loadLexicon(data []byte) (*lexicon, error) {
	var file struct {
		Concepts []lexiconEntry `json:"concepts"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, fmt.Errorf("offline lexicon: %w", err)
	}
	lex := &lexicon{entries: file.Concepts}
	for i, entry := range file.Concepts {
		for _, acronym := range entry.Acronyms {
			lex.terms = append(lex.terms, term{text: acronym, entry: i})
		}
		for _, phrase := range entry.Phrases {
			lex.terms = append(lex.terms, term{text: lowerASCII(phrase), caseFold: true, entry: i})
		}
	}
	return lex, nil
}

var defaultLexicon = func() *lexicon {
	lex, err := loadLexicon(lexiconJSON)
	if err != nil {
		panic(err) // the embedded file is part of the build
	}
	return lex
}()

// recognise finds the lexicon concepts in text, in order of first mention.
// Overlapping matches keep the longest ("UK VAT" beats "VAT").
func (lex *lexicon) recognise(text string) []Concept {
	text = strings.NewReplacer("\u2019", "'", "\u2018", "'").Replace(text)
	folded := lowerASCII(text) // same byte offsets as text
	type match struct{ start, end, entry int }
	var matches []match
	for _, t := range lex.terms {
		in := text
		if t.caseFold {
			in = folded
		}
		for _, start := range wholeWordIndexes(in, t.text) {
			matches = append(matches, match{start, start + len(t.text), t.entry})
		}
	}
	sort.SliceStable(matches, func(i, j int) bool {
		li, lj := matches[i].end-matches[i].start, matches[j].end-matches[j].start
		if li != lj {
			return li > lj
		}
		return matches[i].start < matches[j].start
	})
	var kept []match
	for _, m := range matches {
		overlaps := false
		for _, k := range kept {
			if m.start < k.end && k.start < m.end {
				overlaps = true
				break
			}
		}
		if !overlaps {
			kept = append(kept, m)
		}
	}
	sort.Slice(kept, func(i, j int) bool { return kept[i].start < kept[j].start })
	seen := map[int]bool{}
	var concepts []Concept
	for _, k := range kept {
		if seen[k.entry] {
			continue
		}
		seen[k.entry] = true
		c := lex.entries[k.entry].Concept
		c.AltLabels = append([]string(nil), c.AltLabels...)
		c.SourceURLs = append([]string(nil), c.SourceURLs...)
		concepts = append(concepts, c)
	}
	return concepts
}

// wholeWordIndexes returns where word occurs in s with a word boundary on
// each side (as the regexp \b: ASCII letters, digits and '_' are word
// characters), left to right, not overlapping.
func wholeWordIndexes(s, word string) []int {
	var out []int
	for from := 0; from+len(word) <= len(s); {
		i := strings.Index(s[from:], word)
		if i < 0 {
			break
		}
		start, end := from+i, from+i+len(word)
		if boundary(s, start) && boundary(s, end) {
			out = append(out, start)
			from = end
			continue
		}
		from = start + 1
	}
	return out
}

// boundary reports whether a word boundary lies before s[i].
func boundary(s string, i int) bool {
	before := i > 0 && isWordByte(s[i-1])
	after := i < len(s) && isWordByte(s[i])
	return before != after
}

func isWordByte(b byte) bool {
	return b >= '0' && b <= '9' || b >= 'A' && b <= 'Z' || b >= 'a' && b <= 'z' || b == '_'
}

// lowerASCII lowers ASCII letters only, so byte offsets stay those of s.
func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// Recognise returns the built-in lexicon's concepts mentioned in text.
func Recognise(text string) []Concept { return defaultLexicon.recognise(text) }

// Config configures the offline provider.
type Config struct {
	// WordDelay is waited before each streamed word (default 0).
	WordDelay time.Duration
}

// Provider is the offline model.
type Provider struct {
	cfg Config
}

// New builds the offline provider.
func New(cfg Config) *Provider { return &Provider{cfg: cfg} }

// Name implements llm.Provider.
func (p *Provider) Name() string { return Name }

// SupportsTools implements llm.Provider.
func (p *Provider) SupportsTools() bool { return true }

// Model is the model name for metadata.
func (p *Provider) Model() string { return ModelName }

// Stream implements llm.Provider. A first call that offers capture_concepts
// and recognises terms gets one capture_concepts tool chunk, then usage; any
// other call gets the answer's words as text chunks, then usage.
func (p *Provider) Stream(ctx context.Context, req llm.Request) (<-chan llm.Chunk, error) {
	question := lastUserMessage(req.Messages)
	concepts := Recognise(question)
	answered := toolOutputSinceLastUser(req.Messages)
	callTool := offersCapture(req.Tools) && len(concepts) > 0 && !answered
	var calculations []json.RawMessage
	if !answered {
		calculations = calculateCalls(question, concepts, req.Tools)
	}
	out := make(chan llm.Chunk, 16)
	go func() {
		defer close(out)
		s := &sender{ctx: ctx, out: out, delay: p.cfg.WordDelay}
		var outputTokens int
		if callTool || len(calculations) > 0 {
			if callTool {
				args, err := json.Marshal(map[string]any{"concepts": concepts})
				if err != nil || !s.send(llm.Chunk{Type: llm.ChunkTool, CallID: callID(req.Messages), ToolName: CaptureConceptsTool, ArgsJSON: args}) {
					s.cancelled()
					return
				}
				outputTokens = len(concepts) * 20
			}
			for i, args := range calculations {
				id := fmt.Sprintf("%s_calc_%d", callID(req.Messages), i)
				if !s.send(llm.Chunk{Type: llm.ChunkTool, CallID: id, ToolName: CalculateTool, ArgsJSON: args}) {
					s.cancelled()
					return
				}
				outputTokens += 20
			}
		} else {
			words := strings.SplitAfter(Answer(concepts)+calculatedFigures(req.Messages)+groundedFacts(req.Messages), " ")
			for _, word := range words {
				if !s.send(llm.Chunk{Type: llm.ChunkText, Delta: word}) {
					s.cancelled()
					return
				}
			}
			outputTokens = len(words)
		}
		inputTokens := estimateTokens(req)
		s.send(llm.Chunk{Type: llm.ChunkUsage, Usage: &llm.Usage{
			InputTokens: inputTokens, OutputTokens: outputTokens, TotalTokens: inputTokens + outputTokens,
		}})
	}()
	return out, nil
}

// sender paces chunks like a model and stops when the caller goes away.
type sender struct {
	ctx   context.Context
	out   chan llm.Chunk
	delay time.Duration
}

func (s *sender) send(chunk llm.Chunk) bool {
	if s.delay > 0 && chunk.Type != llm.ChunkUsage && !sleep(s.ctx, s.delay) {
		return false
	}
	select {
	case s.out <- chunk:
		return true
	case <-s.ctx.Done():
		return false
	}
}

// cancelled sends the final error chunk, without blocking: the consumer may
// have stopped reading.
func (s *sender) cancelled() {
	if s.ctx.Err() == nil {
		return
	}
	select {
	case s.out <- llm.Chunk{Type: llm.ChunkError, Err: &llm.ProviderError{Provider: Name, Code: "cancelled", Message: "request cancelled", Err: s.ctx.Err()}}:
	default:
	}
}

func offersCapture(tools []llm.Tool) bool {
	for _, tool := range tools {
		if tool.Name == CaptureConceptsTool {
			return true
		}
	}
	return false
}

// toolOutputSinceLastUser reports whether a tool output came back after the
// latest user message: the model has called its tool and now answers.
func toolOutputSinceLastUser(messages []llm.Message) bool {
	for i := len(messages) - 1; i >= 0 && messages[i].Role != llm.RoleUser; i-- {
		if messages[i].Role == llm.RoleTool {
			return true
		}
	}
	return false
}

// callID is deterministic and unique within the conversation it extends.
func callID(messages []llm.Message) string {
	return fmt.Sprintf("call_offline_%d", len(messages))
}

// Answer is the offline model's answer for the recognised concepts.
func Answer(concepts []Concept) string {
	var b strings.Builder
	b.WriteString("This is the offline model (" + ModelName + "): it runs without a language model or network access, so it cannot give a full answer. ")
	if len(concepts) == 0 {
		b.WriteString("I did not recognise any tax, welfare, pension or vehicle registration terms from my small built-in lexicon in your question. ")
	} else {
		b.WriteString("In your question I recognised: ")
		for i, c := range concepts {
			if i > 0 {
				b.WriteString(" ")
			}
			fmt.Fprintf(&b, "%s (%s): %s", c.PrefLabel, c.Jurisdiction, c.Definition)
		}
		b.WriteString(" These concepts are noted for this conversation. ")
	}
	b.WriteString("For a real answer, configure an OpenAI or OpenAI-compatible model, and check official sources such as Revenue, gov.ie or GOV.UK before acting.")
	return b.String()
}

// maxQuotedFacts bounds the graph facts the offline answer repeats.
const maxQuotedFacts = 6

// groundedFacts repeats the rules graph's facts that the prompt gave the
// model (the lines of its fenced <graph_facts> messages, newest first), so
// a local run shows what a real model would have been grounded in.
func groundedFacts(messages []llm.Message) string {
	var facts []string
	for i := len(messages) - 1; i >= 0 && len(facts) < maxQuotedFacts; i-- {
		_, section, found := strings.Cut(messages[i].Content, "<graph_facts>\n")
		if messages[i].Role != llm.RoleUser || !found {
			continue
		}
		section, _, _ = strings.Cut(section, "</graph_facts>")
		for _, line := range strings.Split(section, "\n") {
			if strings.HasPrefix(line, "- ") && len(facts) < maxQuotedFacts {
				facts = append(facts, strings.TrimPrefix(line, "- "))
			}
		}
	}
	if len(facts) == 0 {
		return ""
	}
	return " The rules graph holds: " + strings.Join(facts, " | ") + "."
}

func lastUserMessage(messages []llm.Message) string {
	for i := len(messages) - 1; i >= 0; i-- {
		if messages[i].Role == llm.RoleUser {
			return messages[i].Content
		}
	}
	return ""
}

// estimateTokens approximates input tokens as words * 4/3.
func estimateTokens(req llm.Request) int {
	words := countWords(req.System)
	for _, msg := range req.Messages {
		words += countWords(msg.Content)
	}
	return words * 4 / 3
}

// countWords is len(strings.Fields(s)) without building the slice: it
// counts the words' first bytes, each a non-space after a space or the
// start.
func countWords(s string) int {
	n, prevSpace := 0, 1
	for i := 0; i < len(s); i++ {
		c := s[i]
		space := int(asciiSpace[c])
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			space = 0
			if unicode.IsSpace(r) {
				space = 1
			}
			i += size - 1
		}
		n += prevSpace &^ space
		prevSpace = space
	}
	return n
}

// asciiSpace is 1 for the ASCII bytes unicode.IsSpace reports.
var asciiSpace = [256]uint8{'\t': 1, '\n': 1, '\v': 1, '\f': 1, '\r': 1, ' ': 1}

func sleep(ctx context.Context, d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}
