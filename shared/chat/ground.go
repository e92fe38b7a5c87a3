package chat

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"regintel/shared/concept"
	"regintel/shared/conversation"
	"regintel/shared/graph"
	"regintel/shared/llm"
	"regintel/shared/prompt"
)

// maxFactsPerConcept bounds the facts given to the model for one concept.
const maxFactsPerConcept = 8

// grounding is what the rules graph says about the turn: the conversation's
// concepts (as context lines) and the facts of every concept in scope.
type grounding struct {
	concepts []prompt.ConceptLine
	facts    []prompt.FactGroup
	// read is every fact the graph read, before the question chose the
	// ones it is given: a history turn's facts are found here, so its
	// replay does not depend on what the current question names.
	read *readFacts
}

// ground reads, in one graph round trip, the conversation's active concepts
// and the concepts the question names, with their facts. A graph failure
// leaves both out and the turn goes on with a warning.
func (t *Turn) ground(ctx context.Context) grounding {
	e := t.e
	active := t.state.Context.ActiveNodeIDs
	var candidates []string
	if e.words != nil {
		candidates = e.words.Match(t.questionForLLM(), t.profileJurisdictions())
	}
	gctx, cancel := context.WithTimeout(ctx, e.cfg.GraphTimeout)
	found, err := e.graph.Ground(gctx, graph.GroundingQuery{
		ActiveIDs: active, Text: t.questionForLLM(), Candidates: candidates,
		Jurisdictions: t.profileJurisdictions(), MaxFactsPerConcept: readFactsPerConcept, AsOf: t.asOf().Date, AsOfEnd: t.asOf().End,
	})
	cancel()
	if err != nil {
		t.log.Error("graph grounding failed; answering without the graph", "err", err, "active_nodes", len(active))
		t.warn("The rules graph is unavailable; this answer is not grounded in its facts or in concepts from earlier turns.")
		return grounding{}
	}
	all := slices.Clone(found)
	found = focusFacts(found, t.questionForLLM(), maxFactsPerConcept)
	t.keepFacts(all)
	lines := &factLines{marks: validityOn(t.asOf().Date, e.now())}
	return grounding{concepts: t.conceptLines(active, found), facts: lines.groups(found),
		read: &readFacts{lines: lines, found: orderedForPrompt(all)}}
}

// conceptLines names each active concept, in the context's order: by the
// graph's node, or, for a concept the graph does not hold yet (it is
// written asynchronously), by the label it was captured with.
func (t *Turn) conceptLines(active []string, found []graph.GroundedConcept) []prompt.ConceptLine {
	byID := make(map[string]graph.Node, len(found))
	for _, g := range found {
		byID[g.Node.ID] = g.Node
	}
	captured := t.capturedLabels()
	var lines []prompt.ConceptLine
	for _, id := range active {
		if n, ok := byID[id]; ok {
			// A captured concept is a bare node until an official source
			// confirms it; this conversation still names it by its capture.
			lines = append(lines, prompt.ConceptLine{ID: n.ID, Label: cmp(n.PrefLabel, cmp(captured[id], n.ID)), Jurisdiction: n.Jurisdiction, Definition: n.Definition})
			continue
		}
		if label, ok := captured[id]; ok {
			lines = append(lines, prompt.ConceptLine{ID: id, Label: label, Jurisdiction: jurisdictionOf(id)})
		}
	}
	return lines
}

// capturedLabels are the labels earlier turns captured, by resolved id.
func (t *Turn) capturedLabels() map[string]string {
	out := map[string]string{}
	for _, turn := range t.state.History {
		for _, c := range turn.Metadata.Concepts {
			out[c.ID] = c.Label
		}
	}
	return out
}

func jurisdictionOf(id string) string {
	parts := strings.Split(id, ":")
	if len(parts) == 3 {
		return parts[1]
	}
	return ""
}

func cmp(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// orderedForPrompt orders grounded concepts for the prompt: the concepts
// the question names first, then the conversation's.
func orderedForPrompt(found []graph.GroundedConcept) []graph.GroundedConcept {
	ordered := slices.Clone(found)
	sort.SliceStable(ordered, func(i, j int) bool { return ordered[i].Mentioned && !ordered[j].Mentioned })
	return ordered
}

// factLines renders a turn's fact lines, each once: the facts the question
// is given are among those a history turn's replay reads.
type factLines struct {
	marks    validity
	rendered map[[2]string]prompt.FactLine // by concept and fact node id
}

// line is the fact's line under its concept (whose id its validity marks read).
func (l *factLines) line(conceptID string, f graph.Fact) prompt.FactLine {
	key := [2]string{conceptID, f.NodeID}
	if line, ok := l.rendered[key]; ok {
		return line
	}
	line := l.marks.withValidity(factLine(f), f, conceptID)
	if l.rendered == nil {
		l.rendered = map[[2]string]prompt.FactLine{}
	}
	l.rendered[key] = line
	return line
}

// groups are the facts for the prompt, in orderedForPrompt's order; each
// concept's facts as read (newest first).
func (l *factLines) groups(found []graph.GroundedConcept) []prompt.FactGroup {
	var out []prompt.FactGroup
	for _, g := range orderedForPrompt(found) {
		if len(g.Facts) == 0 {
			continue
		}
		group := prompt.FactGroup{ConceptID: g.Node.ID, Concept: conceptName(g.Node), Facts: make([]prompt.FactLine, 0, len(g.Facts))}
		for _, f := range g.Facts {
			group.Facts = append(group.Facts, l.line(g.Node.ID, f))
		}
		out = append(out, group)
	}
	return out
}

func conceptName(n graph.Node) string { return cmp(n.PrefLabel, n.ID) }

// readFacts are the facts grounding read, found by node id for a history
// turn's replay; the index is built on the first look-up and a line is
// rendered only when a turn cites it.
type readFacts struct {
	lines *factLines
	found []graph.GroundedConcept // in orderedForPrompt's order
	byID  map[string][2]int       // where found holds the fact: concept, fact
}

// find is the fact with this node id and its concept; a fact read under two
// concepts is found under the later one.
func (r *readFacts) find(nodeID string) (concept graph.Node, line prompt.FactLine, ok bool) {
	if r == nil {
		return graph.Node{}, prompt.FactLine{}, false
	}
	if r.byID == nil {
		r.byID = map[string][2]int{}
		for i, g := range r.found {
			for j, f := range g.Facts {
				r.byID[f.NodeID] = [2]int{i, j}
			}
		}
	}
	at, ok := r.byID[nodeID]
	if !ok {
		return graph.Node{}, prompt.FactLine{}, false
	}
	g := r.found[at[0]]
	return g.Node, r.lines.line(g.Node.ID, g.Facts[at[1]]), true
}

func factLine(f graph.Fact) prompt.FactLine {
	return prompt.FactLine{NodeID: f.NodeID, Kind: f.Kind, Label: cmp(f.Label, f.NodeID), Value: renderValues(f.Properties),
		Sources: f.SourceURLs, LastVerified: f.LastVerifiedAt}
}

// renderValues writes a fact's values as "key: value" pairs in key order;
// its domain and jurisdiction are its concept's and go unsaid.
func renderValues(props map[string]any) string {
	keys := make([]string, 0, len(props))
	for k := range props {
		if k != "domain" && k != "jurisdiction" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(k)
		b.WriteString(": ")
		switch v := props[k].(type) {
		case string:
			b.WriteString(v)
		case int64:
			b.WriteString(strconv.FormatInt(v, 10))
		case float64:
			b.WriteString(strconv.FormatFloat(v, 'g', -1, 64)) // as %v writes it
		default:
			fmt.Fprint(&b, v)
		}
	}
	return b.String()
}

// fit renders the prompt within the token budget. Everything sent to the
// model passes the model redaction first. The graph's concepts and facts
// go in the turn's fenced context message, never in the instructions; so
// does a persona that is not one of the persona codes.
func (t *Turn) fit(g grounding, tools []llm.Tool) (prompt.Fitted, error) {
	e := t.e
	persona := t.profile().PersonaType
	code, isCode := conversation.PersonaCode(persona)
	in := prompt.Input{
		Data: prompt.Data{
			AgentID: e.cfg.AgentID, Jurisdictions: t.profileJurisdictions(), PersonaType: code,
			Concepts: g.concepts, CaptureConcepts: hasTool(tools, concept.CaptureToolName), RequestContext: hasTool(tools, RequestContextToolName),
			AsOf: t.asOfLine(),
		},
		Facts: g.facts, Question: t.questionForLLM(), ToolTokens: t.toolTokens(tools), HistoryWindow: e.cfg.HistoryTurns,
	}
	if !isCode {
		in.PersonaNote = e.redact.forLLM(persona)
	}
	if t.req.Stateless {
		in.ClientHistory = []llm.Message{}
		for _, m := range t.req.Messages {
			in.ClientHistory = append(in.ClientHistory, llm.Message{Role: m.Role, Content: e.redact.forLLM(m.Content)})
		}
	}
	for _, turn := range t.state.History {
		// A turn that asked for context is repeated by the turn that
		// answers it; sending both would duplicate the question.
		if turn.Status == conversation.TurnContextRequired {
			continue
		}
		// A retried turn is asked again, not remembered.
		if t.retried && turn.Number == t.number {
			continue
		}
		user, assistant := e.redact.historyForLLM(turn)
		in.History = append(in.History, prompt.HistoryTurn{Number: turn.Number, UserText: user,
			AssistantText: assistant, CutShort: turn.Status != conversation.TurnOK,
			Facts: citedFacts(turn.Metadata.Citations, g.read), AsOf: asOfLineOf(turn.Metadata.AsOf)})
	}
	for _, it := range t.supplied {
		in.Supplied = append(in.Supplied, prompt.SuppliedItem{ID: it.ID, Key: it.Key, Kind: it.Kind, Content: e.redact.forLLM(it.Content)})
	}
	return prompt.Fit(e.sheet, e.tokens, e.cfg.TokenBudget, in)
}

// citedFacts are the facts a turn was given (its citations), as the graph
// holds them now, in the order they were given, grouped by concept; a
// fact the graph no longer grounds is left out. The order does not depend
// on what the current question names, so a replayed turn reads the same
// from one turn to the next. A group is a run of one concept's citations:
// a turn's citations open with the earlier turns' facts it was shown
// again, so a concept of those and of its own facts is two groups, and
// once the earlier ones are left out its own facts keep their place.
func citedFacts(citations []conversation.Citation, facts *readFacts) []prompt.FactGroup {
	var out []prompt.FactGroup
	for _, c := range citations {
		concept, fact, ok := facts.find(c.NodeID)
		if !ok {
			continue
		}
		if len(out) == 0 || out[len(out)-1].ConceptID != concept.ID {
			out = append(out, prompt.FactGroup{ConceptID: concept.ID, Concept: conceptName(concept)})
		}
		// The mark is the one the turn was given, so its replay reads
		// the same whatever this turn's date.
		fact.MayBeOutdated = c.MayBeOutdated
		out[len(out)-1].Facts = append(out[len(out)-1].Facts, fact)
	}
	return out
}

func hasTool(tools []llm.Tool, name string) bool {
	return slices.ContainsFunc(tools, func(t llm.Tool) bool { return t.Name == name })
}

func schemaJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
