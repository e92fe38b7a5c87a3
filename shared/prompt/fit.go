package prompt

import (
	"slices"
	"strconv"
	"strings"

	"regintel/shared/conversation"
	"regintel/shared/llm"
)

// Query compositions: which context sources a turn drew on.
const (
	CompositionChat   = "chat"   // history only
	CompositionKB     = "kb"     // concepts and facts from the rules graph
	CompositionDoc    = "doc"    // supplied context
	CompositionHybrid = "hybrid" // graph and supplied context
)

// Input is everything a turn may send to the model, already redacted for
// it. History and supplied items are oldest first.
type Input struct {
	// Data feeds the system and turn sections. Its Supplied and Facts are
	// ignored: Fit chooses them.
	Data Data
	// PersonaNote is a persona the user wrote in their own words: it is sent
	// fenced, as data, never in the instructions.
	PersonaNote string
	// Facts are the graph's facts in priority order (the message's own
	// concepts first, newest facts first within a concept).
	Facts    []FactGroup
	History  []HistoryTurn
	Supplied []SuppliedItem
	// ClientHistory is the client-held history of a stateless request.
	ClientHistory []llm.Message
	Question      string
	// ToolTokens is what the offered tool schemas cost; it counts against
	// the budget like the prompt does.
	ToolTokens int
	// HistoryWindow is how many turns of history are loaded at most; history
	// is dropped in blocks of half of it, so the request's prefix moves only
	// every few turns.
	HistoryWindow int
}

// HistoryTurn is one stored turn offered as history.
type HistoryTurn struct {
	Number        int
	UserText      string
	AssistantText string
	// Facts are the graph's facts the turn was given, as the graph holds
	// them now: the history replays each fact before the first turn that
	// was given it, as it was sent then, so a fact is sent once.
	Facts []FactGroup
	// AsOf is the date the turn's facts were for: their replay names it
	// as the turn's own message did, so the history reads the same.
	AsOf AsOfLine
	// CutShort marks an answer that failed or was interrupted: the model is
	// told so, so it never reads it as a complete answer.
	CutShort bool
}

// SuppliedItem is one item of supplied context.
type SuppliedItem struct {
	ID      string
	Key     string
	Kind    string
	Content string
}

// Fitted is the prompt as it will be sent.
type Fitted struct {
	System   string
	Messages []llm.Message
	// Facts are all the graph's facts the model was given: in the history,
	// then in the turn's own message.
	Usage       Usage
	Composition string
	// SuppliedIDs are the supplied items in the prompt; Facts the facts.
	SuppliedIDs []string
	Facts       []FactLine
	// factsDropped counts the facts left out for the budget;
	// historyTokens is what the history, with its facts, costs.
	factsDropped, historyTokens int
}

// Usage records how the prompt was fitted into the token budget; it is
// stored with the turn and sent in the metadata event.
type Usage = conversation.ContextUsage

// CutShortMarker follows a failed or interrupted answer in later prompts.
const CutShortMarker = "[this answer was cut short]"

// fitter holds one Fit call's working state.
type fitter struct {
	sheet  *Sheet
	tok    *Tokenizer
	budget int
	in     Input
	usage  Usage
	// block is how many turns of history are dropped at once.
	block int
	// composition is whether the graph grounded the prompt as built.
	composition bool
	// largest is the turn's context with every fact new to the history,
	// as rendered to size the fixed parts; the context sent is often the
	// same, and then is not rendered again.
	largest struct {
		facts []FactGroup
		turn  []Rendered
	}
}

// fixedParts are the parts of a request that Fit never drops: the
// instructions, the persona note, the turn's context and the question.
type fixedParts struct {
	system      []Rendered
	personaNote string
	question    string
	data        Data
}

// Fit builds the instructions and messages within budget tokens, laid out
// stable first (see the section names). The instructions, the tool
// schemas, the persona note and the question always go; then the graph's
// facts (whole, at most a quarter of the budget); then supplied context
// (newest first, at most half of what is left while there is history);
// then history turns, newest first and whole, until one does not fit,
// dropped from the oldest in blocks. A single item longer than a quarter
// of the budget is cut with a marker. The result is counted as sent and
// trimmed further if the joins cost more than the parts. Fit does no I/O.
func Fit(sheet *Sheet, tok *Tokenizer, budget int, in Input) (Fitted, error) {
	in.Facts = withText(in.Facts)
	in.History = slices.Clone(in.History)
	for i := range in.History {
		in.History[i].Facts = withText(in.History[i].Facts)
	}
	f := &fitter{sheet: sheet, tok: tok, budget: budget, in: in, usage: Usage{
		Budget: budget, Encoding: tok.Encoding(), HistoryWindow: in.HistoryWindow, ToolTokens: in.ToolTokens,
		SectionTokens: map[string]int{}, TurnsIncluded: []int{}, TurnsDropped: []int{},
		SuppliedIncluded: []string{}, SuppliedDropped: []string{}, Truncated: []string{},
	}}
	question, err := f.question()
	if err != nil {
		return Fitted{}, err
	}
	data := in.Data
	data.Supplied, data.Facts = nil, nil
	parts, err := f.fixedParts(data, question)
	if err != nil {
		return Fitted{}, err
	}
	// The turn's context at its largest: every fact new to the history.
	largest, _ := chooseFacts(f.tok, f.budget/4, in.Facts, nil)
	data.Facts = largest
	turn, err := f.sheet.TurnContext(data)
	if err != nil {
		return Fitted{}, err
	}
	f.largest.facts, f.largest.turn = largest, turn
	fixed := tok.Count(Join(parts.system)) + tok.Count(parts.personaNote) + tok.Count(Join(turn)) + tok.Count(question) + in.ToolTokens
	history, err := f.historyCandidates()
	if err != nil {
		return Fitted{}, err
	}
	supplied := f.chooseSupplied(budget-fixed, len(history) > 0)
	return f.assemble(parts, history, supplied)
}

// fixedParts renders what every request of the turn sends whole.
func (f *fitter) fixedParts(data Data, question string) (fixedParts, error) {
	system, err := f.sheet.System(data)
	if err != nil {
		return fixedParts{}, err
	}
	parts := fixedParts{system: system, question: question, data: data}
	if note := strings.TrimSpace(f.in.PersonaNote); note != "" {
		note, _ = f.tok.Truncate(note, f.itemCap())
		if parts.personaNote, err = f.sheet.execute(SectionUserProfile, MessageData{Role: string(llm.RoleUser), Text: fence(note)}); err != nil {
			return fixedParts{}, err
		}
	}
	return parts, nil
}

func (f *fitter) itemCap() int { return max(f.budget/4, 1) }

func (f *fitter) question() (string, error) {
	q, err := f.sheet.RenderMessage(SectionQuestion, MessageData{Role: string(llm.RoleUser), Text: f.in.Question})
	if err != nil {
		return "", err
	}
	q, cut := f.tok.Truncate(q, max(f.budget/2, 1))
	if cut {
		f.usage.Truncated = append(f.usage.Truncated, "question")
	}
	f.usage.QuestionTokens = f.tok.Count(q)
	return q, nil
}

// chooseFacts keeps whole fact lines not in given, in priority order,
// within share tokens; a concept keeps its heading only when a fact of it
// fits. It returns the kept facts and how many were left out for room.
func chooseFacts(tok *Tokenizer, share int, facts []FactGroup, given map[string]bool) ([]FactGroup, int) {
	used, dropped := 0, 0
	out := make([]FactGroup, 0, len(facts))
	for _, g := range facts {
		kept := FactGroup{ConceptID: g.ConceptID, Concept: g.Concept, Facts: make([]FactLine, 0, len(g.Facts))}
		for _, fact := range g.Facts {
			if given[fact.NodeID] {
				continue
			}
			cost := tok.Count(fact.Text())
			if used+cost > share {
				dropped++
				continue
			}
			used += cost
			kept.Facts = append(kept.Facts, fact)
		}
		if len(kept.Facts) > 0 {
			out = append(out, kept)
		}
	}
	return out, dropped
}

// sameFacts: a and b, both chosen from the fitter's input, hold the same
// facts in the same groups and order (a fact of the input is known by its
// node id there).
func sameFacts(a, b []FactGroup) bool {
	return slices.EqualFunc(a, b, func(x, y FactGroup) bool {
		return x.ConceptID == y.ConceptID && x.Concept == y.Concept &&
			slices.EqualFunc(x.Facts, y.Facts, func(p, q FactLine) bool { return p.NodeID == q.NodeID })
	})
}

// newFacts are the facts of groups not in given, which they are added to.
func newFacts(groups []FactGroup, given map[string]bool) []FactGroup {
	var out []FactGroup
	for _, g := range groups {
		kept := FactGroup{ConceptID: g.ConceptID, Concept: g.Concept}
		for _, fact := range g.Facts {
			if !given[fact.NodeID] {
				given[fact.NodeID] = true
				kept.Facts = append(kept.Facts, fact)
			}
		}
		if len(kept.Facts) > 0 {
			out = append(out, kept)
		}
	}
	return out
}

// candidate is one history turn (or one client message) as it would be sent.
type candidate struct {
	number   int
	messages []llm.Message
	// facts the turn was given; tokens counts those no earlier loaded
	// turn was given.
	facts  []FactGroup
	asOf   AsOfLine
	tokens int
	cut    bool
}

// historyCandidates renders the history newest first, each message capped.
func (f *fitter) historyCandidates() ([]candidate, error) {
	var out []candidate
	if f.in.ClientHistory != nil {
		for i := len(f.in.ClientHistory) - 1; i >= 0; i-- {
			m := f.in.ClientHistory[i]
			line := string(m.Role) + ": " + m.Content
			capped, cut := f.tok.Truncate(line, f.itemCap())
			out = append(out, candidate{messages: []llm.Message{{Role: m.Role, Content: capped}}, tokens: f.tok.Count(capped), cut: cut})
		}
		return out, nil
	}
	factTokens, err := f.historyFactTokens()
	if err != nil {
		return nil, err
	}
	for i := len(f.in.History) - 1; i >= 0; i-- {
		turn := f.in.History[i]
		c := candidate{number: turn.Number, facts: turn.Facts, asOf: turn.AsOf, tokens: factTokens[i]}
		answer := turn.AssistantText
		if turn.CutShort {
			answer = strings.TrimSpace(answer + "\n" + CutShortMarker)
		}
		for _, m := range []llm.Message{{Role: llm.RoleUser, Content: turn.UserText}, {Role: llm.RoleAssistant, Content: answer}} {
			if m.Content == "" {
				continue
			}
			text, err := f.sheet.RenderMessage(SectionHistory, MessageData{Role: string(m.Role), Text: m.Content})
			if err != nil {
				return nil, err
			}
			capped, cut := f.tok.Truncate(text, f.itemCap())
			c.cut = c.cut || cut
			c.messages = append(c.messages, llm.Message{Role: m.Role, Content: capped})
			c.tokens += f.tok.Count(capped)
		}
		out = append(out, c)
	}
	return out, nil
}

// historyFactTokens is, for each turn of history, what the facts it was
// the first of the loaded turns to be given cost.
func (f *fitter) historyFactTokens() ([]int, error) {
	out := make([]int, len(f.in.History))
	given := map[string]bool{}
	for i, turn := range f.in.History {
		if facts := newFacts(turn.Facts, given); len(facts) > 0 {
			text, err := f.sheet.turnSection(SectionGraphFacts, Data{Facts: facts, AsOf: turn.AsOf})
			if err != nil {
				return nil, err
			}
			out[i] = f.tok.Count(text)
		}
	}
	return out, nil
}

// chooseSupplied picks supplied items newest first within their share of
// what is left, and returns them oldest first.
func (f *fitter) chooseSupplied(remaining int, withHistory bool) []SuppliedLine {
	share := remaining
	if withHistory {
		share = remaining / 2
	}
	// A few tokens for each item's heading.
	const headingTokens = 12
	var chosen []SuppliedLine
	used := 0
	for i := len(f.in.Supplied) - 1; i >= 0; i-- {
		it := f.in.Supplied[i]
		room := min(f.itemCap(), share-used-headingTokens)
		if room <= 32 {
			f.usage.SuppliedDropped = append(f.usage.SuppliedDropped, it.Key)
			continue
		}
		content, cut := f.tok.Truncate(it.Content, room)
		if cut {
			f.usage.Truncated = append(f.usage.Truncated, "supplied:"+it.Key)
		}
		used += f.tok.Count(content) + headingTokens
		chosen = append(chosen, SuppliedLine{id: it.ID, Key: it.Key, Kind: it.Kind, Content: content, Truncated: cut})
	}
	slices.Reverse(chosen)
	return chosen
}

// assemble adds history turns, newest first and whole, until one does not
// fit, and drops the oldest to the block boundary; then drops turns (a
// block at a time), then supplied items, until the prompt as sent fits.
func (f *fitter) assemble(parts fixedParts, history []candidate, supplied []SuppliedLine) (Fitted, error) {
	turns := 0
	out, total, err := f.build(parts, history, turns, supplied)
	if err != nil {
		return Fitted{}, err
	}
	for turns < len(history) && total+history[turns].tokens <= f.budget {
		total += history[turns].tokens
		turns++
	}
	f.block = blockSize(f.in.HistoryWindow, turns)
	turns = f.aligned(history, turns)
	out, total, err = f.build(parts, history, turns, supplied)
	for err == nil && total > f.budget && (turns > 0 || len(supplied) > 0) {
		if turns > 0 {
			turns = f.aligned(history, turns-1)
		} else {
			f.usage.SuppliedDropped = append(f.usage.SuppliedDropped, supplied[0].Key)
			supplied = supplied[1:]
		}
		out, total, err = f.build(parts, history, turns, supplied)
	}
	if err != nil {
		return Fitted{}, err
	}
	f.record(&out, parts, history, turns, supplied, total)
	return out, nil
}

// blockSize is how many turns are dropped at once: half the window, and
// never more than half of what fits, so at least half of it is kept.
func blockSize(window, fits int) int {
	return max(1, min((window+1)/2, (fits+1)/2))
}

// aligned is how many of the newest turns to send when at most turns fit:
// the oldest turn sent is the first of a block (numbers 1, 1+block,
// 1+2*block...), so from one turn to the next the history is appended to
// and its start moves only every block turns. A client's own history
// (unnumbered) is sent as it fits.
func (f *fitter) aligned(history []candidate, turns int) int {
	if turns == 0 || f.block <= 1 || history[turns-1].number <= 0 {
		return turns
	}
	oldest := history[turns-1].number
	boundary := 1 + f.block*((oldest-1+f.block-1)/f.block)
	for turns > 0 && history[turns-1].number < boundary {
		turns--
	}
	return turns
}

// build renders the prompt with the newest turns of history and the given
// supplied items, and counts it as sent. Each fact is sent once: before
// the oldest sent turn that was given it, else in the turn's own message.
func (f *fitter) build(parts fixedParts, history []candidate, turns int, supplied []SuppliedLine) (Fitted, int, error) {
	out := Fitted{System: Join(parts.system)}
	if parts.personaNote != "" {
		out.Messages = append(out.Messages, llm.Message{Role: llm.RoleUser, Content: parts.personaNote})
	}
	if len(supplied) > 0 {
		text, err := f.sheet.execute(SectionSuppliedContext, SuppliedData{Items: fenced(supplied)})
		if err != nil {
			return Fitted{}, 0, err
		}
		out.Messages = append(out.Messages, llm.Message{Role: llm.RoleUser, Content: text})
	}
	given := map[string]bool{}
	if err := f.addHistory(&out, history, turns, given); err != nil {
		return Fitted{}, 0, err
	}
	if err := f.addTurnContext(&out, parts.data, given); err != nil {
		return Fitted{}, 0, err
	}
	out.Messages = append(out.Messages, llm.Message{Role: llm.RoleUser, Content: parts.question})
	total := f.tok.Count(out.System) + f.in.ToolTokens
	for _, m := range out.Messages {
		total += f.tok.Count(m.Content)
	}
	return out, total, nil
}

// addHistory appends the newest turns of history, oldest first, each
// after the facts it was the first to be given.
func (f *fitter) addHistory(out *Fitted, history []candidate, turns int, given map[string]bool) error {
	if f.in.ClientHistory != nil && turns > 0 {
		lines := make([]MessageData, 0, turns)
		for i := turns - 1; i >= 0; i-- {
			m := history[i].messages[0]
			lines = append(lines, MessageData{Role: string(m.Role), Text: fence(m.Content)})
		}
		text, err := f.sheet.execute(SectionClientHistory, ClientHistoryData{Messages: lines})
		if err != nil {
			return err
		}
		out.Messages = append(out.Messages, llm.Message{Role: llm.RoleUser, Content: text})
		return nil
	}
	for i := turns - 1; i >= 0; i-- {
		if facts := newFacts(history[i].facts, given); len(facts) > 0 {
			text, err := f.sheet.turnSection(SectionGraphFacts, Data{Facts: facts, AsOf: history[i].asOf})
			if err != nil {
				return err
			}
			out.Messages = append(out.Messages, llm.Message{Role: llm.RoleUser, Content: text})
			out.historyTokens += f.tok.Count(text)
			for _, g := range facts {
				out.Facts = append(out.Facts, g.Facts...)
			}
		}
		out.Messages = append(out.Messages, history[i].messages...)
		for _, m := range history[i].messages {
			out.historyTokens += f.tok.Count(m.Content)
		}
	}
	return nil
}

// addTurnContext appends the turn's own context: the facts the history
// has not given (within a quarter of the budget), then the concepts in
// scope, one fenced message each.
func (f *fitter) addTurnContext(out *Fitted, data Data, given map[string]bool) error {
	data.Facts, out.factsDropped = chooseFacts(f.tok, f.budget/4, f.in.Facts, given)
	n := 0
	for _, g := range data.Facts {
		n += len(g.Facts)
	}
	out.Facts = slices.Grow(out.Facts, n)
	for _, g := range data.Facts {
		out.Facts = append(out.Facts, g.Facts...)
	}
	turn := f.largest.turn
	if !sameFacts(data.Facts, f.largest.facts) {
		var err error
		if turn, err = f.sheet.TurnContext(data); err != nil {
			return err
		}
	}
	for _, section := range turnSections {
		delete(f.usage.SectionTokens, section)
	}
	f.composition = len(data.Concepts) > 0 || len(out.Facts) > 0
	for _, r := range turn {
		out.Messages = append(out.Messages, llm.Message{Role: llm.RoleUser, Content: r.Text})
		f.usage.SectionTokens[r.Name] = f.tok.Count(r.Text)
	}
	return nil
}

// record fills in what was sent.
func (f *fitter) record(out *Fitted, parts fixedParts, history []candidate, turns int, supplied []SuppliedLine, total int) {
	u := &f.usage
	for _, s := range supplied {
		out.SuppliedIDs = append(out.SuppliedIDs, s.id)
		u.SuppliedIncluded = append(u.SuppliedIncluded, s.Key)
	}
	for _, s := range parts.system {
		u.SectionTokens[s.Name] = f.tok.Count(s.Text)
	}
	if parts.personaNote != "" {
		u.SectionTokens[SectionUserProfile] = f.tok.Count(parts.personaNote)
	}
	u.SystemTokens = f.tok.Count(out.System)
	for i, c := range history {
		switch {
		case i < turns:
			if c.number > 0 {
				u.TurnsIncluded = append(u.TurnsIncluded, c.number)
			}
			if c.cut && c.number > 0 {
				u.Truncated = append(u.Truncated, "turn:"+strconv.Itoa(c.number))
			}
		case c.number > 0:
			u.TurnsDropped = append(u.TurnsDropped, c.number)
		}
	}
	if len(supplied) > 0 {
		at := 0 // supplied context follows the persona note
		if parts.personaNote != "" {
			at = 1
		}
		u.SuppliedTokens = f.tok.Count(out.Messages[at].Content)
	}
	slices.Sort(u.TurnsIncluded)
	slices.Sort(u.TurnsDropped)
	u.TotalTokens = total
	u.HistoryTokens = out.historyTokens
	u.FactsIncluded, u.FactsDropped = len(out.Facts), out.factsDropped
	u.TruncationApplied = len(u.Truncated) > 0
	out.Usage = *u
	out.Composition = composition(f.composition, len(supplied) > 0)
}

func composition(kb, doc bool) string {
	switch {
	case kb && doc:
		return CompositionHybrid
	case kb:
		return CompositionKB
	case doc:
		return CompositionDoc
	default:
		return CompositionChat
	}
}
