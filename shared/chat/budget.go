package chat

import (
	"slices"
	"strconv"

	"regintel/shared/conversation"
	"regintel/shared/llm"
	"regintel/shared/prompt"
)

// Query compositions: which context sources a turn drew on (seed 002).
const (
	CompositionChat   = "chat"   // history only
	CompositionKB     = "kb"     // conversation context from the rules graph
	CompositionDoc    = "doc"    // supplied context
	CompositionHybrid = "hybrid" // graph and supplied context
)

// ContextUsage records how the prompt was fitted into the token budget. It
// is stored with the turn (metadata.context) and sent in the metadata event.
// Token counts are of the text sent (system prompt, message contents).
type ContextUsage struct {
	Budget         int            `json:"budget"`
	Encoding       string         `json:"encoding"`
	SystemTokens   int            `json:"systemTokens"`
	SectionTokens  map[string]int `json:"sectionTokens"`
	SuppliedTokens int            `json:"suppliedContextTokens"`
	HistoryTokens  int            `json:"historyTokens"`
	QuestionTokens int            `json:"questionTokens"`
	TotalTokens    int            `json:"totalTokens"`
	HistoryWindow  int            `json:"historyWindow"`
	// Turn numbers of the history sent, and of loaded turns left out for
	// the budget (older turns outside the window are never loaded).
	TurnsIncluded []int `json:"turnsIncluded"`
	TurnsDropped  []int `json:"turnsDropped"`
	// Keys of supplied items sent and left out.
	SuppliedIncluded []string `json:"suppliedItemsIncluded"`
	SuppliedDropped  []string `json:"suppliedItemsDropped"`
	// What was cut with a marker: "question", "turn:<n>", "supplied:<key>".
	Truncated         []string `json:"truncated"`
	TruncationApplied bool     `json:"truncationApplied"`
}

// assembly is the fitted prompt.
type assembly struct {
	system      string
	messages    []llm.Message
	usage       ContextUsage
	composition string
	// suppliedIDs are the ids of the supplied items in the prompt.
	suppliedIDs []string
}

// contextInput is what the budget chooses from, already redacted for the
// model. History is oldest first; supplied items oldest first.
type contextInput struct {
	data     prompt.Data
	history  []conversation.Turn
	supplied []conversation.SuppliedItem
	question string
	// stateless history from the client (no turn numbers).
	clientMessages []llm.Message
}

type historyCandidate struct {
	number   int
	messages []llm.Message
	tokens   int
	cut      bool
}

// fitContext builds the system prompt and messages within the budget:
// the sheet's system sections and the question always; then supplied
// context (newest first, at most half of what is left while there is
// history); then history turns, newest first and whole, until one does not
// fit. A single item longer than a quarter of the budget is truncated with
// a marker. The result is re-counted as sent, and trimmed further if the
// joins cost a few tokens more than the parts.
func (e *Engine) fitContext(in contextInput) (assembly, error) {
	tok, sheet, budget := e.tokens, e.sheet, e.cfg.TokenBudget
	usage := ContextUsage{Budget: budget, Encoding: tok.Encoding(), HistoryWindow: e.cfg.HistoryTurns,
		SectionTokens: map[string]int{}, TurnsIncluded: []int{}, TurnsDropped: []int{},
		SuppliedIncluded: []string{}, SuppliedDropped: []string{}, Truncated: []string{}}
	itemCap := max(budget/4, 1)
	cut := func(what, text string, limit int) string {
		out, truncated := tok.Truncate(text, limit)
		if truncated {
			usage.Truncated = append(usage.Truncated, what)
		}
		return out
	}

	question, err := sheet.RenderMessage(prompt.SectionQuestion, prompt.MessageData{Role: string(llm.RoleUser), Text: in.question})
	if err != nil {
		return assembly{}, err
	}
	question = cut("question", question, max(budget/2, 1))
	questionTokens := tok.Count(question)

	base := in.data
	base.Supplied = nil
	baseSections, err := sheet.System(base)
	if err != nil {
		return assembly{}, err
	}
	remaining := budget - tok.Count(prompt.Join(baseSections)) - questionTokens

	// History candidates, newest first, each message capped.
	var candidates []historyCandidate
	render := func(role llm.Role, text string) (string, error) {
		return sheet.RenderMessage(prompt.SectionHistory, prompt.MessageData{Role: string(role), Text: text})
	}
	if in.clientMessages != nil {
		// Stateless: the client's messages, paired from the end.
		for i := len(in.clientMessages) - 1; i >= 0; i-- {
			m := in.clientMessages[i]
			text, err := render(m.Role, m.Content)
			if err != nil {
				return assembly{}, err
			}
			c := historyCandidate{number: 0, messages: []llm.Message{{Role: m.Role, Content: text}}}
			candidates = append(candidates, c)
		}
	} else {
		for i := len(in.history) - 1; i >= 0; i-- {
			turn := in.history[i]
			c := historyCandidate{number: turn.Number}
			for _, m := range []llm.Message{{Role: llm.RoleUser, Content: turn.UserText}, {Role: llm.RoleAssistant, Content: turn.AssistantText}} {
				if m.Content == "" {
					continue
				}
				text, err := render(m.Role, m.Content)
				if err != nil {
					return assembly{}, err
				}
				capped, truncated := tok.Truncate(text, itemCap)
				c.cut = c.cut || truncated
				c.messages = append(c.messages, llm.Message{Role: m.Role, Content: capped})
			}
			candidates = append(candidates, c)
		}
	}
	for i := range candidates {
		for _, m := range candidates[i].messages {
			candidates[i].tokens += tok.Count(m.Content)
		}
	}

	// Supplied context: newest first within its share.
	suppliedShare := remaining
	if len(candidates) > 0 {
		suppliedShare = remaining / 2
	}
	type chosenItem struct {
		item conversation.SuppliedItem
		line prompt.SuppliedLine
	}
	var chosen []chosenItem
	used := 0
	for i := len(in.supplied) - 1; i >= 0; i-- {
		it := in.supplied[i]
		// A few tokens for the item's heading.
		const headingTokens = 12
		room := min(itemCap, suppliedShare-used-headingTokens)
		if room <= 32 {
			usage.SuppliedDropped = append(usage.SuppliedDropped, it.Key)
			continue
		}
		content, truncated := tok.Truncate(it.Content, room)
		if truncated {
			usage.Truncated = append(usage.Truncated, "supplied:"+it.Key)
		}
		used += tok.Count(content) + headingTokens
		chosen = append(chosen, chosenItem{item: it, line: prompt.SuppliedLine{Key: it.Key, Kind: it.Kind, Content: content, Truncated: truncated}})
	}
	slices.Reverse(chosen)

	// Assemble with n history turns and the chosen items, re-counting as
	// sent; shrink until it fits.
	build := func(turns int, items []chosenItem) (assembly, int) {
		data := in.data
		data.Supplied = nil
		for _, c := range items {
			data.Supplied = append(data.Supplied, c.line)
		}
		sections, _ := sheet.System(data)
		a := assembly{system: prompt.Join(sections)}
		total := tok.Count(a.system) + questionTokens
		for i := turns - 1; i >= 0; i-- {
			a.messages = append(a.messages, candidates[i].messages...)
			total += candidates[i].tokens
		}
		a.messages = append(a.messages, llm.Message{Role: llm.RoleUser, Content: question})
		return a, total
	}
	// Newest turns first, whole, until one does not fit.
	_, fixed := build(0, chosen)
	turns := 0
	for turns < len(candidates) && fixed+candidates[turns].tokens <= budget {
		fixed += candidates[turns].tokens
		turns++
	}
	a, total := build(turns, chosen)
	for total > budget && (turns > 0 || len(chosen) > 0) {
		if turns > 0 {
			turns--
		} else {
			usage.SuppliedDropped = append(usage.SuppliedDropped, chosen[0].item.Key)
			chosen = chosen[1:]
		}
		a, total = build(turns, chosen)
	}

	// Record what was sent.
	data := in.data
	for _, c := range chosen {
		data.Supplied = append(data.Supplied, c.line)
		a.suppliedIDs = append(a.suppliedIDs, c.item.ID)
		usage.SuppliedIncluded = append(usage.SuppliedIncluded, c.item.Key)
	}
	sections, _ := sheet.System(data)
	for _, s := range sections {
		usage.SectionTokens[s.Name] = tok.Count(s.Text)
	}
	usage.SuppliedTokens = usage.SectionTokens[prompt.SectionSuppliedContext]
	usage.SystemTokens = tok.Count(a.system)
	usage.QuestionTokens = questionTokens
	for i, c := range candidates {
		if c.number == 0 {
			continue
		}
		if i < turns {
			usage.TurnsIncluded = append(usage.TurnsIncluded, c.number)
			if c.cut {
				usage.Truncated = append(usage.Truncated, "turn:"+strconv.Itoa(c.number))
			}
			usage.HistoryTokens += c.tokens
		} else {
			usage.TurnsDropped = append(usage.TurnsDropped, c.number)
		}
	}
	if in.clientMessages != nil {
		for i := range turns {
			usage.HistoryTokens += candidates[i].tokens
		}
	}
	slices.Sort(usage.TurnsIncluded)
	slices.Sort(usage.TurnsDropped)
	usage.TotalTokens = total
	usage.TruncationApplied = len(usage.Truncated) > 0
	a.usage = usage

	kb := len(in.data.Concepts) > 0
	doc := len(chosen) > 0
	switch {
	case kb && doc:
		a.composition = CompositionHybrid
	case kb:
		a.composition = CompositionKB
	case doc:
		a.composition = CompositionDoc
	default:
		a.composition = CompositionChat
	}
	return a, nil
}
