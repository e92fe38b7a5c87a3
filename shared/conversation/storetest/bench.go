package storetest

import (
	"fmt"
	"testing"

	"regintel/shared/conversation"
)

// benchHistory is how many earlier turns a benchmarked turn loads, as chat
// does.
const benchHistory = 10

// benchTurnsPerConversation bounds how long a benchmarked conversation
// grows before the next call moves to a fresh one (untimed), so the
// numbers are those of a conversation of ordinary length.
const benchTurnsPerConversation = 100

// Bench measures the store calls of a chat turn, each reported per call,
// against the store newStore returns. Every sub-benchmark has a tenant and
// conversation of its own.
func Bench(b *testing.B, newStore NewStore) {
	s := newStore(b)
	benches := []struct {
		name string
		run  func(b *testing.B, s Store, tenant, id string)
	}{
		{"LoadTurnState", benchLoadTurnState},
		{"StartTurn", benchStartTurn},
		{"FinishTurn", benchFinishTurn},
		{"AppendTurn", benchAppendTurn},
		{"MergeActiveNodes", benchMergeActiveNodes},
	}
	for _, bm := range benches {
		b.Run(bm.name, func(b *testing.B) {
			tenant, id := benchConversation(b, s)
			b.ReportAllocs()
			b.ResetTimer()
			bm.run(b, s, tenant, id)
		})
	}
}

// benchConversation is a conversation with benchHistory answered turns and
// a full context.
func benchConversation(b *testing.B, s Store) (tenant, id string) {
	b.Helper()
	tenant = newTenant()
	c, err := s.CreateConversation(userCtx, conversation.Conversation{TenantID: tenant, OwnerID: testUser, Title: "VAT on services", Jurisdictions: []string{"IE"}})
	if err != nil {
		b.Fatal(err)
	}
	for i := range benchHistory {
		if _, err := s.AppendTurn(userCtx, tenant, c.ID, benchTurn(i)); err != nil {
			b.Fatal(err)
		}
	}
	if err := s.MergeActiveNodes(userCtx, tenant, c.ID, benchNodeIDs(0), conversation.DefaultMaxActiveNodes); err != nil {
		b.Fatal(err)
	}
	return tenant, c.ID
}

func benchTurn(i int) conversation.Turn {
	return conversation.Turn{
		UserText: fmt.Sprintf("What VAT rate applies to service %d?", i), AssistantText: "The standard rate of 23% applies.",
		Provider: "openai", Model: "gpt-test", Usage: conversation.Usage{InputTokens: 900, OutputTokens: 120, TotalTokens: 1020},
		ReferencedNodes: []string{"TAX:IE:VAT"},
	}
}

// benchNodeIDs is a turn's worth of active concept ids, half of them new
// from one call to the next.
func benchNodeIDs(i int) []string {
	ids := make([]string, 10)
	for j := range ids {
		ids[j] = fmt.Sprintf("TAX:IE:CONCEPT_%d", i*5+j)
	}
	return ids
}

func benchLoadTurnState(b *testing.B, s Store, tenant, id string) {
	for b.Loop() {
		if _, err := s.LoadTurnState(userCtx, tenant, id, benchHistory); err != nil {
			b.Fatal(err)
		}
	}
}

// benchStartTurn times the start of a turn (lease, usage, reservation);
// finishing it, to free the lease, is not timed.
func benchStartTurn(b *testing.B, s Store, tenant, id string) {
	for i := 0; b.Loop(); i++ {
		tenant, id = renewed(b, s, tenant, id, i)
		st := mustStartBench(b, s, tenant, id, i)
		b.StopTimer()
		mustFinishBench(b, s, tenant, id, st, i)
		b.StartTimer()
	}
}

// benchFinishTurn times the save of a turn's outcome with its context;
// starting it is not timed.
func benchFinishTurn(b *testing.B, s Store, tenant, id string) {
	for i := 0; b.Loop(); i++ {
		tenant, id = renewed(b, s, tenant, id, i)
		b.StopTimer()
		st := mustStartBench(b, s, tenant, id, i)
		b.StartTimer()
		mustFinishBench(b, s, tenant, id, st, i)
	}
}

// renewed returns a fresh conversation, made untimed, every
// benchTurnsPerConversation calls, and the current one otherwise.
func renewed(b *testing.B, s Store, tenant, id string, i int) (string, string) {
	if i == 0 || i%benchTurnsPerConversation != 0 {
		return tenant, id
	}
	b.StopTimer()
	defer b.StartTimer()
	return benchConversation(b, s)
}

func mustStartBench(b *testing.B, s Store, tenant, id string, i int) conversation.TurnState {
	st, err := s.StartTurn(userCtx, tenant, id, conversation.TurnStart{
		HistoryTurns: benchHistory, DailyTokenLimit: 1 << 40, Reserve: &conversation.Turn{UserText: benchTurn(i).UserText},
	})
	if err != nil || st.Reserved == nil {
		b.Fatalf("StartTurn = reserved %v, %v", st.Reserved, err)
	}
	return st
}

func mustFinishBench(b *testing.B, s Store, tenant, id string, st conversation.TurnState, i int) {
	turn := benchTurn(i)
	turn.Number, turn.Status, turn.LeaseID = st.Reserved.Number, conversation.TurnOK, st.LeaseID
	if err := s.FinishTurn(userCtx, tenant, id, turn, conversation.TurnFinish{ActiveNodes: benchNodeIDs(i)}); err != nil {
		b.Fatal(err)
	}
}

func benchAppendTurn(b *testing.B, s Store, tenant, id string) {
	for i := 0; b.Loop(); i++ {
		tenant, id = renewed(b, s, tenant, id, i)
		if _, err := s.AppendTurn(userCtx, tenant, id, benchTurn(i)); err != nil {
			b.Fatal(err)
		}
	}
}

func benchMergeActiveNodes(b *testing.B, s Store, tenant, id string) {
	for i := 0; b.Loop(); i++ {
		if err := s.MergeActiveNodes(userCtx, tenant, id, benchNodeIDs(i), conversation.DefaultMaxActiveNodes); err != nil {
			b.Fatal(err)
		}
	}
}
