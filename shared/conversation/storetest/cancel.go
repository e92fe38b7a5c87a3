package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"regintel/shared/conversation"
)

// A caller that has given up (its request cancelled, its deadline passed)
// gets the context's error back from every method, wrapped rather than
// replaced, and a write leaves no trace: an abandoned turn must not
// half-store.

// deadContextCall is one store method called, with arguments that would
// succeed and (for a write) change something under a live context.
type deadContextCall struct {
	method string
	// shows says the live call leaves a difference traceOf sees, which
	// keeps the trace honest as methods are added.
	shows bool
	call  func(ctx context.Context, s Store, f deadContextFixture) error
}

// deadContextCalls holds one line per method of conversation.Store.
var deadContextCalls = []deadContextCall{
	{"CreateConversation", true, func(ctx context.Context, s Store, f deadContextFixture) error {
		_, err := s.CreateConversation(ctx, conversation.Conversation{TenantID: f.tenant, OwnerID: testUser, Title: "new"})
		return err
	}},
	{"LoadTurnState", false, func(ctx context.Context, s Store, f deadContextFixture) error {
		_, err := s.LoadTurnState(ctx, f.tenant, f.conv, 5)
		return err
	}},
	{"AppendTurn", true, func(ctx context.Context, s Store, f deadContextFixture) error {
		_, err := s.AppendTurn(ctx, f.tenant, f.conv, conversation.Turn{UserText: "q", AssistantText: "a", Usage: conversation.Usage{TotalTokens: 10}})
		return err
	}},
	{"MergeActiveNodes", true, func(ctx context.Context, s Store, f deadContextFixture) error {
		return s.MergeActiveNodes(ctx, f.tenant, f.conv, []string{"TAX:IE:NEW"}, 10)
	}},
	// The lease StartTurn takes is checked by assertLeaseFree; the pending
	// request keeps it from reserving.
	{"StartTurn", false, func(ctx context.Context, s Store, f deadContextFixture) error {
		_, err := s.StartTurn(ctx, f.tenant, f.conv, conversation.TurnStart{HistoryTurns: 5, Reserve: &conversation.Turn{UserText: "q"}, Retry: true})
		return err
	}},
	{"StartConversation", true, func(ctx context.Context, s Store, f deadContextFixture) error {
		_, err := s.StartConversation(ctx, conversation.Conversation{TenantID: f.tenant, OwnerID: testUser}, conversation.TurnStart{Reserve: &conversation.Turn{UserText: "q"}})
		return err
	}},
	{"ReserveTurn", true, func(ctx context.Context, s Store, f deadContextFixture) error {
		_, err := s.ReserveTurn(ctx, f.tenant, f.conv, conversation.Turn{UserText: "q"})
		return err
	}},
	{"RetryTurn", true, func(ctx context.Context, s Store, f deadContextFixture) error {
		_, err := s.RetryTurn(ctx, f.tenant, f.conv)
		return err
	}},
	{"FinishTurn", true, func(ctx context.Context, s Store, f deadContextFixture) error {
		return s.FinishTurn(ctx, f.tenant, f.conv, conversation.Turn{Number: 1, AssistantText: "a", Status: conversation.TurnOK, Usage: conversation.Usage{TotalTokens: 10}},
			conversation.TurnFinish{ActiveNodes: []string{"TAX:IE:NEW"}, UsedItems: []string{f.item}})
	}},
	// A lease that is not the conversation's is left alone.
	{"EndTurn", false, func(ctx context.Context, s Store, f deadContextFixture) error {
		return s.EndTurn(ctx, f.tenant, f.conv, uuid.NewString())
	}},
	{"TenantTokensToday", false, func(ctx context.Context, s Store, f deadContextFixture) error {
		_, err := s.TenantTokensToday(ctx, f.tenant)
		return err
	}},
	{"ChargeTokens", true, func(ctx context.Context, s Store, f deadContextFixture) error {
		_, err := s.ChargeTokens(ctx, f.tenant, conversation.TokenCharge{Tokens: 100}, conversation.DailyLimits{Tokens: 1000})
		return err
	}},
	{"SettleTokens", true, func(ctx context.Context, s Store, f deadContextFixture) error {
		return s.SettleTokens(ctx, f.tenant, conversation.TokenCharge{Day: conversation.UsageDay(time.Now()), Tokens: 100},
			conversation.Settlement{Usage: conversation.Usage{TotalTokens: 10}, Record: true})
	}},
	{"TenantChargedToday", false, func(ctx context.Context, s Store, f deadContextFixture) error {
		_, err := s.TenantChargedToday(ctx, f.tenant)
		return err
	}},
	{"CreateContextRequest", true, func(ctx context.Context, s Store, f deadContextFixture) error {
		_, err := s.CreateContextRequest(ctx, conversation.ContextRequest{TenantID: f.tenant, ConversationID: f.conv, Question: "q", ExpiresAt: time.Now().Add(time.Hour)})
		return err
	}},
	{"GetContextRequest", false, func(ctx context.Context, s Store, f deadContextFixture) error {
		_, err := s.GetContextRequest(ctx, f.tenant, f.conv, f.request)
		return err
	}},
	{"ListContextRequests", false, func(ctx context.Context, s Store, f deadContextFixture) error {
		_, err := s.ListContextRequests(ctx, f.tenant, f.conv)
		return err
	}},
	{"ResolveContextRequest", true, func(ctx context.Context, s Store, f deadContextFixture) error {
		_, err := s.ResolveContextRequest(ctx, f.tenant, f.conv, f.request, conversation.RequestSkipped)
		return err
	}},
	{"LoadHandoffState", false, func(ctx context.Context, s Store, f deadContextFixture) error {
		_, err := s.LoadHandoffState(ctx, f.tenant, f.conv)
		return err
	}},
	{"SupplyItems", true, func(ctx context.Context, s Store, f deadContextFixture) error {
		_, err := s.SupplyItems(ctx, f.tenant, f.conv, []conversation.SuppliedItem{{Key: "other", Kind: conversation.KindText, Content: "x"}})
		return err
	}},
	{"TouchSuppliedItems", true, func(ctx context.Context, s Store, f deadContextFixture) error {
		return s.TouchSuppliedItems(ctx, f.tenant, f.conv, []string{f.item})
	}},
	{"DeleteSuppliedItem", true, func(ctx context.Context, s Store, f deadContextFixture) error {
		return s.DeleteSuppliedItem(ctx, f.tenant, f.conv, f.item)
	}},
	{"ListConversations", false, func(ctx context.Context, s Store, f deadContextFixture) error {
		_, err := s.ListConversations(ctx, f.tenant, conversation.ListQuery{})
		return err
	}},
	{"GetConversation", false, func(ctx context.Context, s Store, f deadContextFixture) error {
		_, err := s.GetConversation(ctx, f.tenant, f.conv)
		return err
	}},
	{"UpdateConversation", true, func(ctx context.Context, s Store, f deadContextFixture) error {
		title, archived := "renamed", true
		_, err := s.UpdateConversation(ctx, f.tenant, f.conv, conversation.Update{Title: &title, Archived: &archived})
		return err
	}},
	{"DeleteConversation", true, func(ctx context.Context, s Store, f deadContextFixture) error {
		_, err := s.DeleteConversation(ctx, f.tenant, f.conv)
		return err
	}},
	{"ExportConversation", false, func(ctx context.Context, s Store, f deadContextFixture) error {
		_, err := s.ExportConversation(ctx, f.tenant, f.conv)
		return err
	}},
}

// deadContextFixture is a conversation with a failed turn, a pending
// context request and a supplied item, so every method has something to
// read or change.
type deadContextFixture struct {
	tenant, conv, request, item string
}

func newDeadContextFixture(t *testing.T, s Store) deadContextFixture {
	t.Helper()
	f := deadContextFixture{tenant: newTenant()}
	f.conv = mustCreate(t, s, f.tenant).ID
	mustAppend(t, s, f.tenant, f.conv, conversation.Turn{UserText: "q1", AssistantText: "partial", Status: conversation.TurnError})
	mustMerge(t, s, f.tenant, f.conv, []string{"TAX:IE:VAT"}, 10)
	r, err := s.CreateContextRequest(userCtx, conversation.ContextRequest{TenantID: f.tenant, ConversationID: f.conv, Question: "q",
		Items: []conversation.RequestedItem{{Key: "income", Kind: conversation.KindProfileFact, Required: true}}, ExpiresAt: time.Now().Add(time.Hour)})
	if err != nil {
		t.Fatalf("CreateContextRequest: %v", err)
	}
	f.request = r.ID
	items, err := s.SupplyItems(userCtx, f.tenant, f.conv, []conversation.SuppliedItem{{RequestID: r.ID, Key: "income", Kind: conversation.KindProfileFact, Content: "EUR 52,000"}})
	if err != nil || len(items) != 1 {
		t.Fatalf("SupplyItems = %v, %v", items, err)
	}
	f.item = items[0].ID
	return f
}

func testCancelledContextChangesNothing(t *testing.T, s Store) {
	runDeadContext(t, s, context.Canceled, func() (context.Context, context.CancelFunc) {
		ctx, cancel := context.WithCancel(userCtx)
		cancel()
		return ctx, cancel
	})
}

func testExpiredDeadlineChangesNothing(t *testing.T, s Store) {
	runDeadContext(t, s, context.DeadlineExceeded, func() (context.Context, context.CancelFunc) {
		return context.WithDeadline(userCtx, time.Now().Add(-time.Second))
	})
}

func runDeadContext(t *testing.T, s Store, want error, dead func() (context.Context, context.CancelFunc)) {
	for _, c := range deadContextCalls {
		t.Run(c.method, func(t *testing.T) {
			assertLiveCallShows(t, s, c)
			f := newDeadContextFixture(t, s)
			before := traceOf(t, s, f)
			ctx, cancel := dead()
			defer cancel()
			if err := c.call(ctx, s, f); !errors.Is(err, want) {
				t.Fatalf("%s under a dead context = %v, want an error that is %v", c.method, err, want)
			}
			if after := traceOf(t, s, f); after != before {
				t.Errorf("%s under a dead context changed the store:\nbefore %s\nafter  %s", c.method, before, after)
			}
			assertLeaseFree(t, s, f)
		})
	}
}

// traceOf is everything a write could leave, read with a live context: the
// conversation's export, the tenant's conversations and the tenant's day.
func traceOf(t *testing.T, s Store, f deadContextFixture) string {
	t.Helper()
	export, err := s.ExportConversation(userCtx, f.tenant, f.conv)
	if errors.Is(err, conversation.ErrNotFound) {
		export = conversation.Export{}
	} else if err != nil {
		t.Fatalf("ExportConversation: %v", err)
	}
	page, err := s.ListConversations(userCtx, f.tenant, conversation.ListQuery{Limit: conversation.MaxPageSize})
	if err != nil {
		t.Fatalf("ListConversations: %v", err)
	}
	used, err := s.TenantTokensToday(userCtx, f.tenant)
	if err != nil {
		t.Fatalf("TenantTokensToday: %v", err)
	}
	charged, err := s.TenantChargedToday(userCtx, f.tenant)
	if err != nil {
		t.Fatalf("TenantChargedToday: %v", err)
	}
	b, err := json.Marshal(map[string]any{"export": export, "conversations": page.Conversations, "used": used, "charged": charged})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// assertLeaseFree fails when a dead call left the turn lease taken.
func assertLeaseFree(t *testing.T, s Store, f deadContextFixture) {
	t.Helper()
	st, err := s.StartTurn(userCtx, f.tenant, f.conv, conversation.TurnStart{})
	if err != nil {
		t.Fatalf("StartTurn after the dead call: %v (a dead call left the lease taken?)", err)
	}
	if err := s.EndTurn(userCtx, f.tenant, f.conv, st.LeaseID); err != nil {
		t.Fatalf("EndTurn: %v", err)
	}
}

// assertLiveCallShows makes c under a live context on a fixture of its own:
// it must succeed and, when c.shows, change the trace, or a dead-context
// pass would prove nothing.
func assertLiveCallShows(t *testing.T, s Store, c deadContextCall) {
	t.Helper()
	f := newDeadContextFixture(t, s)
	before := traceOf(t, s, f)
	if err := c.call(userCtx, s, f); err != nil {
		t.Fatalf("%s under a live context: %v", c.method, err)
	}
	if changed := traceOf(t, s, f) != before; changed != c.shows {
		t.Fatalf("%s under a live context changed the trace: %v, the table says %v", c.method, changed, c.shows)
	}
}
