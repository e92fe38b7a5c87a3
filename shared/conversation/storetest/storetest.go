// Package storetest is the behavioural contract of conversation.Store, run
// against every implementation so they cannot drift apart.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/google/uuid"

	"regintel/shared/conversation"
)

// Run runs the whole contract (turns, context handoff, the conversation
// API, the remembered profile) against the stores newStore returns.
// newStore may return the same store each time: every test uses its own
// tenant ids.
func Run(t *testing.T, newStore NewStore) {
	for _, tc := range suite {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, newStore(t))
		})
	}
}

// suite is every case Run runs, each on a fresh store.
var suite = []struct {
	name string
	run  func(t *testing.T, s Store)
}{
	// Turns and context.
	{"CreateThenLoadEmptyState", testCreateThenLoad},
	{"CreateWithChosenID", testCreateWithChosenID},
	{"OtherTenantIsNotFound", testTenantIsolation},
	{"OtherUserIsNotFound", testOwnerIsolation},
	{"NoOwnerIsRefused", testNoOwner},
	{"UnknownOrMalformedIDs", testUnknownIDs},
	{"TurnsNumberedFromOne", testTurnNumbering},
	{"HistoryOldestFirstAndLimited", testHistoryOrderAndLimit},
	{"ConcurrentAppendsGetOneToFifty", testConcurrentAppends},
	{"ConcurrentMergesLoseNothing", testConcurrentMerges},
	{"MergeMovesRepeatsToNewestAndCaps", testMergeRecencyAndCap},
	{"MergeDefaultCap", testMergeDefaultCap},
	{"UnknownTurnStatusIsRefused", testUnknownTurnStatus},
	{"StartThenFinishInPlace", testStartThenFinish},
	{"FinishRefusesOpenStatusAndMissingTurn", testFinishRefusals},
	{"RetryRestartsOnlyAFailedLastTurn", testRetryLastTurn},
	{"ConcurrentRetriesRestartOnce", testConcurrentRetries},
	{"OneTurnAtATime", testTurnLease},
	{"TenantUsagePerDay", testTenantUsage},
	{"FinishEndsTheTurn", testFinishEndsTheTurn},
	{"StartReservesTheTurn", testStartReserves},
	{"StartWithoutReservation", testStartWithoutReservation},
	{"StartRetriesTheFailedTurn", testStartRetries},
	{"StartConversationReservesItsFirstTurn", testStartConversation},
	{"FinishTouchesUsedItems", testFinishTouchesUsedItems},
	// The daily cap's ledger.
	{"ConcurrentChargesHoldTheCap", testConcurrentChargesHoldTheCap},
	{"ChargeThenSettle", testChargeThenSettle},
	{"UsageKeepsCachedTokensAndCost", testUsageKeepsCachedTokensAndCost},
	{"CostLimit", testCostLimit},
	{"LapsedChargeIsSettledToItsEstimate", testLapsedChargeIsSettledToItsEstimate},
	// Context handoff.
	{"RequestCreatedPendingAndLoaded", testRequestLifecycle},
	{"RequestsAreTenantAndConversationScoped", testRequestIsolation},
	{"ConcurrentResolvesSucceedOnce", testConcurrentResolve},
	{"SuppliedItemsReplaceByKeyAndDelete", testSuppliedItems},
	{"ConcurrentSuppliesOfOneKeyLeaveOneItem", testConcurrentSupplySameKey},
	{"LoadTurnStateCarriesTheHandoffState", testLoadTurnStateCarriesHandoff},
	// The conversation API.
	{"ListNewestFirstInPages", testAdminListPages},
	{"ListFiltersOwnerArchivedTenant", testAdminListFilters},
	{"GetUpdateExportDelete", testAdminLifecycle},
	{"AdminOtherTenantIsNotFound", testAdminTenantIsolation},
	{"TurnFeedbackReplacedExportedErased", testTurnFeedback},
	{"TurnFeedbackRefusals", testTurnFeedbackRefusals},
	{"RetryDropsTheTurnsFeedback", testRetryDropsTheTurnsFeedback},
	{"SearchTitleAndTurns", testSearchTitleAndTurns},
	// The remembered profile.
	{"ProfileStoredAtCreation", testProfileAtCreation},
	{"TurnReplacesProfile", testTurnReplacesProfile},
	{"RefusedTurnLeavesProfile", testRefusedTurnLeavesProfile},
	{"PatchSetsProfile", testPatchSetsProfile},
	// Callers that gave up.
	{"CancelledContextChangesNothing", testCancelledContextChangesNothing},
	{"ExpiredDeadlineChangesNothing", testExpiredDeadlineChangesNothing},
}

// Store is a conversation.Store with the reads and writes only the suite
// needs, to set up a case and to look at what a call left behind; both
// stores implement them.
type Store interface {
	conversation.Store
	// CreateConversation inserts a new conversation (with c.Profile, if
	// set) and returns it with its id.
	CreateConversation(ctx context.Context, c conversation.Conversation) (conversation.Conversation, error)
	// LoadTurnState loads the conversation (with its profile), its last
	// historyTurns turns, its context and its handoff state.
	LoadTurnState(ctx context.Context, tenantID, conversationID string, historyTurns int) (conversation.TurnState, error)
	// ListContextRequests returns the conversation's requests, oldest first.
	ListContextRequests(ctx context.Context, tenantID, conversationID string) ([]conversation.ContextRequest, error)
	// LoadHandoffState returns the newest pending request and the supplied
	// items of the conversation.
	LoadHandoffState(ctx context.Context, tenantID, conversationID string) (conversation.HandoffState, error)
}

// NewStore returns the store under test; a benchmark reuses it.
type NewStore func(t testing.TB) Store

func newTenant() string { return uuid.NewString() }

// testUser owns the contract's conversations; userCtx acts for them.
const testUser = "user-1"

var userCtx = conversation.WithOwner(context.Background(), testUser)

func mustCreate(t *testing.T, s Store, tenantID string) conversation.Conversation {
	t.Helper()
	c, err := s.CreateConversation(userCtx, conversation.Conversation{
		TenantID: tenantID, OwnerID: testUser, Title: "VAT on services", Jurisdictions: []string{"IE", "EU"},
	})
	if err != nil {
		t.Fatalf("CreateConversation: %v", err)
	}
	if uuid.Validate(c.ID) != nil {
		t.Fatalf("CreateConversation returned id %q, want a uuid", c.ID)
	}
	return c
}

func mustLoad(t *testing.T, s Store, tenantID, id string, turns int) conversation.TurnState {
	t.Helper()
	st, err := s.LoadTurnState(userCtx, tenantID, id, turns)
	if err != nil {
		t.Fatalf("LoadTurnState: %v", err)
	}
	return st
}

func mustAppend(t *testing.T, s Store, tenantID, id string, turn conversation.Turn) int {
	t.Helper()
	n, err := s.AppendTurn(userCtx, tenantID, id, turn)
	if err != nil {
		t.Fatalf("AppendTurn: %v", err)
	}
	return n
}

func mustMerge(t *testing.T, s Store, tenantID, id string, ids []string, maxNodes int) {
	t.Helper()
	if err := s.MergeActiveNodes(userCtx, tenantID, id, ids, maxNodes); err != nil {
		t.Fatalf("MergeActiveNodes(%v): %v", ids, err)
	}
}

func testCreateThenLoad(t *testing.T, s Store) {
	tenant := newTenant()
	c := mustCreate(t, s, tenant)
	if c.TenantID != tenant || c.OwnerID != testUser || c.Title != "VAT on services" ||
		!slices.Equal(c.Jurisdictions, []string{"IE", "EU"}) || c.Archived || c.LastTurnNumber != 0 ||
		c.CreatedAt.IsZero() || c.UpdatedAt.IsZero() {
		t.Fatalf("created conversation = %+v", c)
	}

	st := mustLoad(t, s, tenant, c.ID, 5)
	got := st.Conversation
	if got.ID != c.ID || got.TenantID != tenant || got.OwnerID != c.OwnerID || got.Title != c.Title ||
		!slices.Equal(got.Jurisdictions, c.Jurisdictions) || got.LastTurnNumber != 0 || !got.CreatedAt.Equal(c.CreatedAt) {
		t.Fatalf("loaded conversation = %+v, created %+v", got, c)
	}
	if st.History == nil || len(st.History) != 0 {
		t.Fatalf("history of a new conversation = %#v, want empty non-nil", st.History)
	}
	if st.Context.ActiveNodeIDs == nil || len(st.Context.ActiveNodeIDs) != 0 || st.ContextErr != nil {
		t.Fatalf("absent context = %#v (err %v), want empty non-nil activeNodeIds and no error",
			st.Context, st.ContextErr)
	}
	if st.HandoffErr != nil || st.Handoff == nil || st.Handoff.Pending != nil || st.Handoff.Items == nil || len(st.Handoff.Items) != 0 {
		t.Fatalf("handoff of a new conversation = %+v (err %v), want no pending request and an empty non-nil item list",
			st.Handoff, st.HandoffErr)
	}
	if got.Profile != nil {
		t.Fatalf("conversation created without a profile loads with %+v", got.Profile)
	}
}

func testCreateWithChosenID(t *testing.T, s Store) {
	tenant, id := newTenant(), uuid.NewString()
	c, err := s.CreateConversation(userCtx, conversation.Conversation{ID: id, TenantID: tenant, OwnerID: testUser})
	if err != nil || c.ID != id {
		t.Fatalf("CreateConversation with id %s = %q, %v", id, c.ID, err)
	}
	if c.Jurisdictions == nil {
		t.Fatal("nil jurisdictions should come back as an empty list")
	}
	// The same id again, even from another tenant, is refused.
	if _, err := s.CreateConversation(userCtx, conversation.Conversation{ID: id, TenantID: newTenant(), OwnerID: testUser}); err == nil {
		t.Fatal("a second conversation with the same id was accepted")
	}
	if _, err := s.CreateConversation(userCtx, conversation.Conversation{ID: "not-a-uuid", TenantID: tenant}); err == nil {
		t.Fatal("a non-uuid conversation id was accepted")
	}
}

func testTenantIsolation(t *testing.T, s Store) {
	ctx := userCtx
	owner, other := newTenant(), newTenant()
	c := mustCreate(t, s, owner)
	mustAppend(t, s, owner, c.ID, conversation.Turn{UserText: "q1", AssistantText: "a1"})
	mustMerge(t, s, owner, c.ID, []string{"TAX:IE:VAT"}, 3)

	if _, err := s.LoadTurnState(ctx, other, c.ID, 5); !errors.Is(err, conversation.ErrNotFound) {
		t.Errorf("LoadTurnState from another tenant: err = %v, want ErrNotFound", err)
	}
	if _, err := s.AppendTurn(ctx, other, c.ID, conversation.Turn{UserText: "intrusion"}); !errors.Is(err, conversation.ErrNotFound) {
		t.Errorf("AppendTurn from another tenant: err = %v, want ErrNotFound", err)
	}
	if err := s.MergeActiveNodes(ctx, other, c.ID, []string{"X:Y:Z"}, 3); !errors.Is(err, conversation.ErrNotFound) {
		t.Errorf("MergeActiveNodes from another tenant: err = %v, want ErrNotFound", err)
	}

	st := mustLoad(t, s, owner, c.ID, 10)
	if st.Conversation.LastTurnNumber != 1 || len(st.History) != 1 || st.History[0].UserText != "q1" {
		t.Errorf("owner's turns changed by another tenant: last=%d history=%+v", st.Conversation.LastTurnNumber, st.History)
	}
	if !slices.Equal(st.Context.ActiveNodeIDs, []string{"TAX:IE:VAT"}) {
		t.Errorf("owner's context changed by another tenant: %v", st.Context.ActiveNodeIDs)
	}
}

func testUnknownIDs(t *testing.T, s Store) {
	ctx := userCtx
	tenant := newTenant()
	for _, id := range []string{uuid.NewString(), "not-a-uuid", ""} {
		if _, err := s.LoadTurnState(ctx, tenant, id, 5); !errors.Is(err, conversation.ErrNotFound) {
			t.Errorf("LoadTurnState(%q): err = %v, want ErrNotFound", id, err)
		}
		if _, err := s.AppendTurn(ctx, tenant, id, conversation.Turn{UserText: "q"}); !errors.Is(err, conversation.ErrNotFound) {
			t.Errorf("AppendTurn(%q): err = %v, want ErrNotFound", id, err)
		}
		if err := s.MergeActiveNodes(ctx, tenant, id, []string{"A"}, 3); !errors.Is(err, conversation.ErrNotFound) {
			t.Errorf("MergeActiveNodes(%q): err = %v, want ErrNotFound", id, err)
		}
	}
	// Tenant ids are uuids (the auth layer maps claims to them); anything
	// else is refused rather than silently scoped.
	if _, err := s.CreateConversation(ctx, conversation.Conversation{TenantID: "acme", OwnerID: testUser}); err == nil {
		t.Error("CreateConversation accepted a non-uuid tenant id")
	}
	if _, err := s.LoadTurnState(ctx, "acme", uuid.NewString(), 5); err == nil {
		t.Error("LoadTurnState accepted a non-uuid tenant id")
	}
}

func testTurnNumbering(t *testing.T, s Store) {
	tenant := newTenant()
	c := mustCreate(t, s, tenant)
	first := conversation.Turn{
		UserText: "What is the VAT rate on restaurant meals?", AssistantText: "13.5% in Ireland.",
		Provider: "openai", Model: "gpt-test",
		Usage:     conversation.Usage{InputTokens: 120, OutputTokens: 30, TotalTokens: 150},
		LatencyMS: 842, ReferencedNodes: []string{"TAX:IE:VAT"},
		Metadata: conversation.TurnMetadata{QueryComposition: "kb", ModelCalls: 2, Warnings: []string{"w"},
			Context:   &conversation.ContextUsage{Budget: 512, SectionTokens: map[string]int{"jurisdiction": 12}, TurnsIncluded: []int{1}},
			Concepts:  []conversation.ConceptRef{{ID: "TAX:IE:VAT", Label: "VAT"}},
			Citations: []conversation.Citation{{NodeID: "TAX:IE:VAT:RATE:STANDARD", Label: "standard rate", URL: "https://www.revenue.ie/"}}},
	}
	later := []conversation.TurnStatus{conversation.TurnError, conversation.TurnContextRequired}
	for want := 1; want <= 3; want++ {
		turn := first
		if want > 1 {
			turn = conversation.Turn{UserText: fmt.Sprintf("q%d", want), Status: later[want-2]}
		}
		if got := mustAppend(t, s, tenant, c.ID, turn); got != want {
			t.Fatalf("append %d returned turn number %d", want, got)
		}
	}

	st := mustLoad(t, s, tenant, c.ID, 10)
	if st.Conversation.LastTurnNumber != 3 {
		t.Errorf("LastTurnNumber = %d, want 3", st.Conversation.LastTurnNumber)
	}
	if !st.Conversation.UpdatedAt.After(st.Conversation.CreatedAt) && !st.Conversation.UpdatedAt.Equal(st.Conversation.CreatedAt) {
		t.Errorf("UpdatedAt %v before CreatedAt %v", st.Conversation.UpdatedAt, st.Conversation.CreatedAt)
	}
	if len(st.History) != 3 {
		t.Fatalf("history has %d turns, want 3", len(st.History))
	}
	got := st.History[0]
	if got.Number != 1 || got.UserText != first.UserText || got.AssistantText != first.AssistantText ||
		got.Status != conversation.TurnOK || got.Provider != "openai" || got.Model != "gpt-test" ||
		got.Usage != first.Usage || got.LatencyMS != 842 || !slices.Equal(got.ReferencedNodes, first.ReferencedNodes) ||
		got.CreatedAt.IsZero() {
		t.Errorf("turn 1 stored as %+v", got)
	}
	if m := got.Metadata; m.QueryComposition != "kb" || m.ModelCalls != 2 || m.Context == nil || m.Context.Budget != 512 ||
		m.Context.SectionTokens["jurisdiction"] != 12 || len(m.Concepts) != 1 || m.Concepts[0].Label != "VAT" ||
		len(m.Citations) != 1 || m.Citations[0].URL != "https://www.revenue.ie/" || !slices.Equal(m.Warnings, []string{"w"}) {
		t.Errorf("metadata stored as %+v", m)
	}
	if second := st.History[1]; second.Status != conversation.TurnError || second.ReferencedNodes == nil || second.Metadata.Context != nil || second.Metadata.Concepts != nil {
		t.Errorf("turn 2 = %+v: want status error, empty non-nil referencedNodes, empty metadata", second)
	}
	if third := st.History[2]; third.Status != conversation.TurnContextRequired {
		t.Errorf("turn 3 status = %q, want %q", third.Status, conversation.TurnContextRequired)
	}
}

// Only the turn statuses are stored; the old "failed"
// is refused, and nothing of the refused turn is kept.
func testUnknownTurnStatus(t *testing.T, s Store) {
	tenant := newTenant()
	c := mustCreate(t, s, tenant)
	for _, status := range []conversation.TurnStatus{"failed", "OK", "done"} {
		if _, err := s.AppendTurn(userCtx, tenant, c.ID, conversation.Turn{UserText: "q", Status: status}); err == nil {
			t.Errorf("AppendTurn with status %q was accepted", status)
		}
	}
	if st := mustLoad(t, s, tenant, c.ID, 5); st.Conversation.LastTurnNumber != 0 || len(st.History) != 0 {
		t.Errorf("refused turns left last=%d history=%+v", st.Conversation.LastTurnNumber, st.History)
	}
}

func testHistoryOrderAndLimit(t *testing.T, s Store) {
	tenant := newTenant()
	c := mustCreate(t, s, tenant)
	for i := 1; i <= 5; i++ {
		mustAppend(t, s, tenant, c.ID, conversation.Turn{UserText: fmt.Sprintf("q%d", i), AssistantText: fmt.Sprintf("a%d", i)})
	}
	for _, tc := range []struct {
		limit int
		want  []int
	}{
		{3, []int{3, 4, 5}},
		{5, []int{1, 2, 3, 4, 5}},
		{50, []int{1, 2, 3, 4, 5}},
		{1, []int{5}},
		{0, []int{}},
		{-1, []int{}},
	} {
		st := mustLoad(t, s, tenant, c.ID, tc.limit)
		got := []int{}
		for _, turn := range st.History {
			got = append(got, turn.Number)
			if turn.UserText != fmt.Sprintf("q%d", turn.Number) || turn.AssistantText != fmt.Sprintf("a%d", turn.Number) {
				t.Errorf("turn %d holds %q / %q", turn.Number, turn.UserText, turn.AssistantText)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("history with limit %d = %v, want %v", tc.limit, got, tc.want)
		}
	}
}

const concurrency = 50

func testConcurrentAppends(t *testing.T, s Store) {
	tenant := newTenant()
	c := mustCreate(t, s, tenant)
	numbers := make([]int, concurrency)
	errs := make([]error, concurrency)
	var wg sync.WaitGroup
	for i := range concurrency {
		wg.Go(func() {
			numbers[i], errs[i] = s.AppendTurn(userCtx, tenant, c.ID,
				conversation.Turn{UserText: fmt.Sprintf("question %d", i)})
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("append %d: %v", i, err)
		}
	}
	sorted := slices.Sorted(slices.Values(numbers))
	for i, n := range sorted {
		if n != i+1 {
			t.Fatalf("concurrent turn numbers = %v, want exactly 1..%d", sorted, concurrency)
		}
	}

	st := mustLoad(t, s, tenant, c.ID, concurrency)
	if st.Conversation.LastTurnNumber != concurrency || len(st.History) != concurrency {
		t.Fatalf("after %d appends: last=%d, history=%d", concurrency, st.Conversation.LastTurnNumber, len(st.History))
	}
	// Each stored turn holds the text of the append that was told its number.
	for _, turn := range st.History {
		i := slices.Index(numbers, turn.Number)
		if want := fmt.Sprintf("question %d", i); turn.UserText != want {
			t.Errorf("turn %d holds %q, want %q", turn.Number, turn.UserText, want)
		}
	}
}

func testConcurrentMerges(t *testing.T, s Store) {
	tenant := newTenant()
	c := mustCreate(t, s, tenant)
	want := make([]string, concurrency)
	errs := make([]error, concurrency)
	var wg sync.WaitGroup
	for i := range concurrency {
		want[i] = fmt.Sprintf("TAX:IE:CONCEPT_%02d", i)
		wg.Go(func() {
			errs[i] = s.MergeActiveNodes(userCtx, tenant, c.ID, []string{want[i]}, concurrency)
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("merge %d: %v", i, err)
		}
	}
	got := mustLoad(t, s, tenant, c.ID, 0).Context.ActiveNodeIDs
	if !slices.Equal(slices.Sorted(slices.Values(got)), want) {
		t.Fatalf("after %d concurrent merges activeNodeIds = %v (%d), want exactly %v", concurrency, got, len(got), want)
	}
}

func testMergeRecencyAndCap(t *testing.T, s Store) {
	tenant := newTenant()
	c := mustCreate(t, s, tenant)
	steps := []struct {
		merge []string
		want  []string
	}{
		{[]string{"A", "B", "C"}, []string{"A", "B", "C"}},
		{[]string{"A"}, []string{"B", "C", "A"}},               // seen again: moves to the newest end
		{[]string{"D"}, []string{"C", "A", "D"}},               // over the cap: the oldest goes
		{[]string{"E", "", "E", "F"}, []string{"D", "E", "F"}}, // duplicates within a merge, empty ids dropped
		{nil, []string{"D", "E", "F"}},                         // nothing to add changes nothing
		{[]string{"F", "D"}, []string{"E", "F", "D"}},
	}
	for _, step := range steps {
		mustMerge(t, s, tenant, c.ID, step.merge, 3)
		got := mustLoad(t, s, tenant, c.ID, 0).Context.ActiveNodeIDs
		if !slices.Equal(got, step.want) {
			t.Fatalf("after merging %q with cap 3: %q, want %q", step.merge, got, step.want)
		}
	}
	// A larger cap later keeps what is there and grows.
	mustMerge(t, s, tenant, c.ID, []string{"G", "H"}, 10)
	if got := mustLoad(t, s, tenant, c.ID, 0).Context.ActiveNodeIDs; !slices.Equal(got, []string{"E", "F", "D", "G", "H"}) {
		t.Fatalf("after raising the cap: %q", got)
	}
}

func testMergeDefaultCap(t *testing.T, s Store) {
	tenant := newTenant()
	c := mustCreate(t, s, tenant)
	ids := make([]string, conversation.DefaultMaxActiveNodes+10)
	for i := range ids {
		ids[i] = fmt.Sprintf("N%03d", i)
	}
	mustMerge(t, s, tenant, c.ID, ids, 0)
	got := mustLoad(t, s, tenant, c.ID, 0).Context.ActiveNodeIDs
	if want := ids[10:]; !slices.Equal(got, want) {
		t.Fatalf("maxNodes 0 kept %d ids %v, want the newest %d", len(got), got, conversation.DefaultMaxActiveNodes)
	}
}
