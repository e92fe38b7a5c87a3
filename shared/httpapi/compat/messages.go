package compat

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"regintel/shared/chat"
	"regintel/shared/conversation"
	"regintel/shared/graph"
)

// maxSummaryNames bounds the concepts a context summary names.
const maxSummaryNames = 8

// buildMessages turns the conversation's turns into user and assistant
// messages in order. Each answer's metadata carries the concepts earlier
// turns brought into play, labelled from labels.
func buildMessages(d conversation.Detail, labels map[string]NodeSummary) []Message {
	c := d.Conversation
	out := make([]Message, 0, 2*len(d.Turns))
	var prior []string // ids referenced by earlier turns, newest first
	for _, t := range d.Turns {
		base := Message{
			ConversationID: c.ID, PathID: mainPathID(c), BranchedToPaths: []string{},
			MessageType: "standard", CreatedAt: t.CreatedAt,
		}
		user := base
		user.ID, user.Role, user.Content, user.SequenceInPath = messageID(t.Number, "user"), "user", t.UserText, len(out)+1
		out = append(out, user)
		if t.Status != conversation.TurnStreaming || t.AssistantText != "" {
			answer := base
			answer.ID, answer.Role, answer.Content, answer.SequenceInPath = messageID(t.Number, "assistant"), "assistant", t.AssistantText, len(out)+1
			answer.Metadata = answerMetadata(c, t, prior, labels)
			out = append(out, answer)
		}
		prior = mergeNewestFirst(prior, t.ReferencedNodes)
	}
	return out
}

// answerMetadata is the metadata of turn t's answer, given the ids earlier
// turns referenced.
func answerMetadata(c conversation.Conversation, t conversation.Turn, prior []string, labels map[string]NodeSummary) *Metadata {
	m := &Metadata{
		TurnNumber: t.Number, Status: t.Status, ReferencedNodes: nonNil(t.ReferencedNodes),
		PriorTurnNodes: make([]NodeSummary, 0, len(prior)), Jurisdictions: jurisdictionsOf(c),
		DisclaimerKey: chat.DisclaimerKey, Provider: t.Provider, Model: t.Model, Usage: t.Usage,
		LatencyMS: t.LatencyMS, TurnMetadata: t.Metadata,
	}
	m.Warnings = nonNil(m.Warnings)
	for _, id := range prior {
		m.PriorTurnNodes = append(m.PriorTurnNodes, summaryOf(id, labels))
	}
	m.ConversationContextSummary = contextSummary(m.PriorTurnNodes)
	return m
}

// mergeNewestFirst puts ids at the front of list (an id seen again moves
// forward), capped as the conversation context is.
func mergeNewestFirst(list, ids []string) []string {
	out := make([]string, 0, len(list)+len(ids))
	for i := len(ids) - 1; i >= 0; i-- {
		if ids[i] != "" && !slices.Contains(out, ids[i]) {
			out = append(out, ids[i])
		}
	}
	for _, id := range list {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out[:min(len(out), conversation.DefaultMaxActiveNodes)]
}

// contextSummary names the concepts in play from earlier turns, as the
// reference's message view shows under an answer.
func contextSummary(nodes []NodeSummary) string {
	if len(nodes) == 0 {
		return ""
	}
	names := make([]string, 0, maxSummaryNames)
	for _, n := range nodes[:min(len(nodes), maxSummaryNames)] {
		names = append(names, n.Label)
	}
	s := "Earlier in this conversation: " + strings.Join(names, ", ")
	if more := len(nodes) - len(names); more > 0 {
		s += fmt.Sprintf(" and %d more", more)
	}
	return s + "."
}

func summaryOf(id string, labels map[string]NodeSummary) NodeSummary {
	if n, ok := labels[id]; ok {
		return n
	}
	return NodeSummary{ID: id, Label: id, Type: "Concept"}
}

// labelNodes labels every id the turns reference: from the graph when it
// holds the node, else with the label the concept was captured with. A
// graph failure costs the graph's labels only.
func (a *Adapter) labelNodes(ctx context.Context, turns []conversation.Turn) map[string]NodeSummary {
	labels := map[string]NodeSummary{}
	var ids []string
	for _, t := range turns {
		for _, ref := range t.Metadata.Concepts {
			if ref.ID != "" && ref.Label != "" {
				labels[ref.ID] = NodeSummary{ID: ref.ID, Label: ref.Label, Type: "Concept"}
			}
		}
		for _, id := range t.ReferencedNodes {
			if id != "" && !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	if len(ids) == 0 || a.d.Graph == nil {
		return labels
	}
	ctx, cancel := context.WithTimeout(ctx, graphTimeout)
	defer cancel()
	nodes, err := a.d.Graph.GetNodesByIDs(ctx, ids)
	if err != nil {
		a.d.Log.Warn("label referenced nodes failed", "request_id", a.d.Host.RequestID(ctx), "err", err)
		return labels
	}
	for _, n := range nodes {
		labels[n.ID] = nodeSummary(n)
	}
	return labels
}

// nodeSummary labels a node by its preferred label (else its id) and
// types it by its first graph label.
func nodeSummary(n graph.Node) NodeSummary {
	s := NodeSummary{ID: n.ID, Label: n.PrefLabel, Type: "Concept"}
	if s.Label == "" {
		s.Label = n.ID
	}
	if len(n.Labels) > 0 {
		s.Type = n.Labels[0]
	}
	return s
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
