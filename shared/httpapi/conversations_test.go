package httpapi_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"regintel/shared/auth"
	"regintel/shared/conversation"
	convmem "regintel/shared/conversation/memory"
	convpg "regintel/shared/conversation/postgres"
	graphmem "regintel/shared/graph/memory"
	"regintel/shared/httpapi"
	"regintel/shared/pgpool/pgtest"
)

const (
	tenantA = "tenant-a"
	tenantB = "tenant-b"
	userA   = "user-a"
)

// fixture serves the conversation routes over a store the test seeds; on
// Postgres the test also reads and writes rows directly.
type fixture struct {
	t      *testing.T
	pool   *pgxpool.Pool // the owner's pool; nil on the memory store
	store  conversationStore
	server *httptest.Server
}

type fixtureOptions struct {
	graph  testGraph // default: the seeded memory graph
	memory bool      // the memory store instead of Postgres
}

func newFixture(t *testing.T, o fixtureOptions) *fixture {
	t.Helper()
	f := &fixture{t: t, store: convmem.New()}
	if !o.memory {
		var runtime *pgxpool.Pool
		f.pool, runtime = pgtest.NewRuntimePools(t, 8)
		f.store = convpg.New(runtime)
	}
	reader := o.graph
	if reader == nil {
		seeded, err := graphmem.NewSeeded(time.Now())
		if err != nil {
			t.Fatal(err)
		}
		reader = seeded
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	f.server = httptest.NewServer(checkedByContract(t, httpapi.New(httpapi.Options{
		// No default identity: a request without headers is unauthenticated.
		Auth:          auth.Dev{},
		Log:           quiet,
		Conversations: f.store,
		Graph:         reader,
	})))
	t.Cleanup(f.server.Close)
	return f
}

type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("response %d is not the expected JSON: %v\n%s", r.status, err, r.body)
	}
}

// errorCode returns the code of a JSON error body, failing the test when
// the body is not one.
func (r response) errorCode(t *testing.T) string {
	t.Helper()
	var body struct {
		Error struct{ Code, Message string }
	}
	r.decode(t, &body)
	if body.Error.Code == "" || body.Error.Message == "" {
		t.Fatalf("status %d without a JSON error body: %s", r.status, r.body)
	}
	return body.Error.Code
}

// do sends a request as user of tenant ("" tenant sends no identity).
func (f *fixture) do(method, path, tenant, user, contentType, body string) response {
	f.t.Helper()
	req, err := http.NewRequest(method, f.server.URL+path, strings.NewReader(body))
	if err != nil {
		f.t.Fatal(err)
	}
	if tenant != "" {
		req.Header.Set("X-Tenant-Id", tenant)
		req.Header.Set("X-User-Id", user)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		f.t.Fatal(err)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: raw}
}

func (f *fixture) get(path, tenant string) response {
	f.t.Helper()
	return f.do(http.MethodGet, path, tenant, userA, "", "")
}

func (f *fixture) patch(path, tenant, body string) response {
	f.t.Helper()
	return f.do(http.MethodPatch, path, tenant, userA, "application/json", body)
}

func (f *fixture) exec(sql string, args ...any) {
	f.t.Helper()
	if _, err := f.pool.Exec(context.Background(), sql, args...); err != nil {
		f.t.Fatalf("%s: %v", sql, err)
	}
}

func (f *fixture) create(tenant, owner, title string) conversation.Conversation {
	f.t.Helper()
	c, err := f.store.CreateConversation(context.Background(), conversation.Conversation{
		TenantID: auth.TenantUUID(tenant), OwnerID: owner, Title: title, Jurisdictions: []string{"IE"}})
	if err != nil {
		f.t.Fatal(err)
	}
	return c
}

// seeded is a conversation with a row in every table.
type seeded struct {
	conversation.Conversation
	pendingRequestID string
	expiredRequestID string
	doneRequestID    string
}

// seedFull creates a conversation with two turns, an active context, a
// pending, an overdue-but-unswept and a fulfilled context request, and two
// supplied items.
func (f *fixture) seedFull(tenant, title string) seeded {
	f.t.Helper()
	ctx := conversation.WithOwner(context.Background(), userA)
	tenantID := auth.TenantUUID(tenant)
	s := seeded{Conversation: f.create(tenant, userA, title)}
	for i, q := range []string{"What is the VAT rate?", "And for food?"} {
		_, err := f.store.AppendTurn(ctx, tenantID, s.ID, conversation.Turn{
			UserText: q, AssistantText: "answer " + q, Provider: "openai", Model: "gpt-test",
			Usage:           conversation.Usage{InputTokens: 10 + i, OutputTokens: 5, TotalTokens: 15 + i},
			LatencyMS:       int64(100 + i),
			ReferencedNodes: []string{"TAX:IE:VAT"},
			Metadata:        conversation.TurnMetadata{QueryComposition: "chat", Context: &conversation.ContextUsage{TurnsIncluded: []int{i}}},
		})
		if err != nil {
			f.t.Fatal(err)
		}
	}
	if err := f.store.MergeActiveNodes(ctx, tenantID, s.ID, []string{"TAX:IE:VAT", "TAX:IE:NOT_IN_GRAPH"}, 0); err != nil {
		f.t.Fatal(err)
	}
	insertRequest := `INSERT INTO context_requests (tenant_id, conversation_id, status, items, question, expires_at, resolved_at)
		VALUES ($1::uuid, $2::uuid, $3, $4::jsonb, $5, now() + $6::interval, $7::timestamptz) RETURNING id::text`
	items := `[{"key":"income","description":"annual income","kind":"profile_fact","required":true}]`
	for _, r := range []struct {
		id       *string
		status   string
		expiry   string
		resolved *time.Time
	}{
		{&s.pendingRequestID, "pending", "15 minutes", nil},
		{&s.expiredRequestID, "pending", "-1 minute", nil},
		{&s.doneRequestID, "fulfilled", "-1 hour", new(time.Now())},
	} {
		if err := f.pool.QueryRow(ctx, insertRequest, tenantID, s.ID, r.status, items, "How much tax do I owe?",
			r.expiry, r.resolved).Scan(r.id); err != nil {
			f.t.Fatal(err)
		}
	}
	f.exec(`INSERT INTO supplied_context_items (tenant_id, conversation_id, request_id, key, kind, content)
		VALUES ($1::uuid, $2::uuid, $3::uuid, 'income', 'profile_fact', '42000 EUR'),
		       ($1::uuid, $2::uuid, NULL, 'notes', 'text', 'self-employed since 2020')`,
		tenantID, s.ID, s.doneRequestID)
	if err := f.store.SetTurnFeedback(ctx, tenantID, s.ID, conversation.Feedback{TurnNumber: 2, Rating: conversation.RatingDown, Comment: "too vague"}); err != nil {
		f.t.Fatal(err)
	}
	return s
}

// conversationTables lists every table holding rows of a conversation, with
// the column naming it.
var conversationTables = map[string]string{
	"conversations":          "id",
	"conversation_turns":     "conversation_id",
	"conversation_context":   "conversation_id",
	"context_requests":       "conversation_id",
	"supplied_context_items": "conversation_id",
	"turn_feedback":          "conversation_id",
}

// rowCounts counts the conversation's rows in every table.
func (f *fixture) rowCounts(conversationID string) map[string]int {
	f.t.Helper()
	counts := map[string]int{}
	for table, column := range conversationTables {
		var n int
		if err := f.pool.QueryRow(context.Background(),
			"SELECT count(*) FROM "+table+" WHERE "+column+" = $1::uuid", conversationID).Scan(&n); err != nil {
			f.t.Fatal(err)
		}
		counts[table] = n
	}
	return counts
}

type listBody struct {
	Conversations []conversation.Conversation `json:"conversations"`
	NextCursor    *string                     `json:"nextCursor"`
}

func TestListIsPaginatedNewestFirst(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	var made []conversation.Conversation
	for i := range 5 {
		made = append(made, f.create(tenantA, userA, "c"+string(rune('0'+i))))
	}
	f.create(tenantA, "someone-else", "not mine")
	f.create(tenantB, userA, "other tenant")

	// Explicit activity times, with a tie between c1 and c2 that the id
	// must break.
	base := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	for i, minutes := range []int{5, 3, 3, 1, 4} {
		f.exec(`UPDATE conversations SET updated_at = $1::timestamptz WHERE id = $2::uuid`,
			base.Add(time.Duration(minutes)*time.Minute), made[i].ID)
	}
	tied := []string{made[1].ID, made[2].ID}
	slices.Sort(tied)
	want := []string{made[0].ID, made[4].ID, tied[1], tied[0], made[3].ID}

	got, pages := listInPagesOfTwo(t, f)
	if !slices.Equal(got, want) {
		t.Errorf("listed %v, want %v", got, want)
	}
	if pages != 3 {
		t.Errorf("%d pages of 2 for 5 conversations, want 3", pages)
	}

	// Archived filter.
	f.exec(`UPDATE conversations SET archived = true WHERE id = $1::uuid`, made[4].ID)
	var unarchived listBody
	f.get("/conversations?archived=false", tenantA).decode(t, &unarchived)
	if len(unarchived.Conversations) != 4 || slices.ContainsFunc(unarchived.Conversations,
		func(c conversation.Conversation) bool { return c.ID == made[4].ID }) {
		t.Errorf("archived=false listed %d conversations including the archived one", len(unarchived.Conversations))
	}

	checkMadeUpCursors(t, f, base.Add(4*time.Minute), made[4].ID, want)
	checkBadListQueries(t, f, base)
}

// listInPagesOfTwo follows the list's cursors from the first page of two
// to the last, and returns the ids listed and the number of pages.
func listInPagesOfTwo(t *testing.T, f *fixture) (got []string, pages int) {
	t.Helper()
	cursor := ""
	for {
		path := "/conversations?limit=2"
		if cursor != "" {
			path += "&cursor=" + cursor
		}
		resp := f.get(path, tenantA)
		if resp.status != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, resp.status, resp.body)
		}
		var page listBody
		resp.decode(t, &page)
		pages++
		for _, c := range page.Conversations {
			got = append(got, c.ID)
		}
		if page.NextCursor == nil {
			break
		}
		if pages > 5 {
			t.Fatal("pagination does not end")
		}
		cursor = *page.NextCursor
	}
	return got, pages
}

// checkMadeUpCursors: any cursor of the stated form is a position, issued
// or not, and the page after it holds the caller's own conversations only.
// The cursor (at, id) is the second of want, the listing newest first.
func checkMadeUpCursors(t *testing.T, f *fixture, at time.Time, id string, want []string) {
	t.Helper()
	for name, c := range map[string]struct {
		cursor string
		want   []string
	}{
		"after the second": {conversation.Cursor{UpdatedAt: at, ID: id}.Encode(), want[2:]},
		"upper-case id":    {conversation.Cursor{UpdatedAt: at, ID: strings.ToUpper(id)}.Encode(), want[2:]},
		"far future":       {"99999999999.999999999_ffffffff-ffff-ffff-ffff-ffffffffffff", want},
		"before them all":  {"0.000000000_00000000-0000-0000-0000-000000000000", nil},
	} {
		var page listBody
		resp := f.get("/conversations?limit=100&cursor="+c.cursor, tenantA)
		if resp.status != http.StatusOK {
			t.Fatalf("%s: GET with cursor %s: %d %s", name, c.cursor, resp.status, resp.body)
		}
		resp.decode(t, &page)
		var listed []string
		for _, conv := range page.Conversations {
			listed = append(listed, conv.ID)
		}
		if !slices.Equal(listed, c.want) {
			t.Errorf("%s: listed %v, want %v", name, listed, c.want)
		}
	}
}

// checkBadListQueries: each malformed limit, filter or cursor is refused
// with its code; base is a time for a well-formed cursor.
func checkBadListQueries(t *testing.T, f *fixture, base time.Time) {
	t.Helper()
	for path, code := range map[string]string{
		"/conversations?limit=0":                                         "invalid_request",
		"/conversations?limit=101":                                       "invalid_request",
		"/conversations?limit=ten":                                       "invalid_request",
		"/conversations?archived=maybe":                                  "invalid_request",
		"/conversations?limit=":                                          "invalid_request",
		"/conversations?archived=":                                       "invalid_request",
		"/conversations?cursor=":                                         "invalid_cursor",
		"/conversations?cursor=garbage!!":                                "invalid_cursor",
		"/conversations?cursor=1.5_11111111-1111-1111-1111-111111111111": "invalid_cursor",
		"/conversations?cursor=1740830400.000000000_not-a-uuid":          "invalid_cursor",
		"/conversations?cursor=123456789012.000000000_11111111-1111-1111-1111-111111111111":        "invalid_cursor",
		"/conversations?cursor=MjAyNS0wMy0wMVQxMjowMDowMFp8YWJj":                                   "invalid_cursor",
		"/conversations?cursor=" + conversation.Cursor{UpdatedAt: base, ID: "not-a-uuid"}.Encode(): "invalid_cursor",
	} {
		resp := f.get(path, tenantA)
		if resp.status != http.StatusBadRequest || resp.errorCode(t) != code {
			t.Errorf("GET %s: %d %s, want 400 %s", path, resp.status, resp.body, code)
		}
	}
}

type detailBody struct {
	Conversation           conversation.Conversation     `json:"conversation"`
	Turns                  []conversation.Turn           `json:"turns"`
	PendingContextRequests []conversation.ContextRequest `json:"pendingContextRequests"`
	SuppliedContextItems   []conversation.SuppliedItem   `json:"suppliedContextItems"`
	ActiveConcepts         []httpapi.ActiveConcept       `json:"activeConcepts"`
	Warnings               []httpapi.Warning             `json:"warnings"`
}

func TestGetShowsTurnsRequestsItemsAndLabelledConcepts(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	s := f.seedFull(tenantA, "VAT questions")

	resp := f.get("/conversations/"+s.ID, tenantA)
	if resp.status != http.StatusOK {
		t.Fatalf("GET: %d %s", resp.status, resp.body)
	}
	var d detailBody
	resp.decode(t, &d)
	if d.Conversation.ID != s.ID || d.Conversation.Title != "VAT questions" || d.Conversation.LastTurnNumber != 2 {
		t.Errorf("conversation = %+v", d.Conversation)
	}
	if len(d.Turns) != 2 || d.Turns[0].Number != 1 || d.Turns[1].Number != 2 {
		t.Fatalf("turns = %+v, want turns 1 and 2", d.Turns)
	}
	second := d.Turns[1]
	if second.UserText != "And for food?" || second.Model != "gpt-test" || second.Usage.InputTokens != 11 ||
		second.LatencyMS != 101 || !slices.Equal(second.ReferencedNodes, []string{"TAX:IE:VAT"}) ||
		second.Metadata.QueryComposition != "chat" || second.Metadata.Context == nil || !slices.Equal(second.Metadata.Context.TurnsIncluded, []int{1}) {
		t.Errorf("turn 2 = %+v", second)
	}
	// Only the pending request that has not expired is still waiting.
	if len(d.PendingContextRequests) != 1 || d.PendingContextRequests[0].ID != s.pendingRequestID ||
		len(d.PendingContextRequests[0].Items) != 1 || d.PendingContextRequests[0].Items[0].Key != "income" {
		t.Errorf("pending requests = %+v, want only %s", d.PendingContextRequests, s.pendingRequestID)
	}
	if len(d.SuppliedContextItems) != 2 {
		t.Errorf("supplied items = %+v, want 2", d.SuppliedContextItems)
	}
	wantConcepts := []httpapi.ActiveConcept{
		{ID: "TAX:IE:VAT", Label: "Value-Added Tax", Jurisdiction: "IE"},
		{ID: "TAX:IE:NOT_IN_GRAPH"},
	}
	if len(d.ActiveConcepts) != 2 || d.ActiveConcepts[1] != wantConcepts[1] ||
		d.ActiveConcepts[0].ID != wantConcepts[0].ID || d.ActiveConcepts[0].Label == "" {
		t.Errorf("active concepts = %+v, want the VAT concept labelled and the unknown one by id", d.ActiveConcepts)
	}
	if len(d.Warnings) != 0 {
		t.Errorf("warnings = %+v", d.Warnings)
	}

	// Unknown and malformed ids are 404, never 500.
	for _, id := range []string{"00000000-0000-0000-0000-000000000000", "not-a-uuid"} {
		if resp := f.get("/conversations/"+id, tenantA); resp.status != http.StatusNotFound || resp.errorCode(t) != "conversation_not_found" {
			t.Errorf("GET %s: %d %s", id, resp.status, resp.body)
		}
	}
}

// A graph failure costs the labels only (failures are additive).
func TestGetWithGraphDownKeepsConceptIDs(t *testing.T) {
	f := newFixture(t, fixtureOptions{graph: failingGraph{}})
	s := f.seedFull(tenantA, "t")
	resp := f.get("/conversations/"+s.ID, tenantA)
	if resp.status != http.StatusOK {
		t.Fatalf("GET: %d %s", resp.status, resp.body)
	}
	var d detailBody
	resp.decode(t, &d)
	if len(d.ActiveConcepts) != 2 || d.ActiveConcepts[0].ID != "TAX:IE:VAT" || d.ActiveConcepts[0].Label != "" {
		t.Errorf("active concepts = %+v", d.ActiveConcepts)
	}
	if len(d.Warnings) != 1 || d.Warnings[0].Code != "concept_labels_unavailable" {
		t.Errorf("warnings = %+v", d.Warnings)
	}
}

func TestPatchTitleAndArchive(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	c := f.create(tenantA, userA, "old title")
	path := "/conversations/" + c.ID

	resp := f.patch(path, tenantA, `{"title": "  Pension questions  ", "archived": true}`)
	if resp.status != http.StatusOK {
		t.Fatalf("PATCH: %d %s", resp.status, resp.body)
	}
	var body struct{ Conversation conversation.Conversation }
	resp.decode(t, &body)
	if body.Conversation.Title != "Pension questions" || !body.Conversation.Archived {
		t.Errorf("PATCH returned %+v", body.Conversation)
	}
	var title string
	var archived bool
	var updatedAt time.Time
	if err := f.pool.QueryRow(context.Background(), `SELECT title, archived, updated_at FROM conversations WHERE id = $1::uuid`,
		c.ID).Scan(&title, &archived, &updatedAt); err != nil {
		t.Fatal(err)
	}
	if title != "Pension questions" || !archived {
		t.Errorf("database holds title %q archived %v", title, archived)
	}
	if !updatedAt.Equal(c.UpdatedAt) {
		t.Errorf("updated_at moved from %v to %v: a rename is not activity", c.UpdatedAt, updatedAt)
	}

	// Only archived: the title stays.
	if resp := f.patch(path, tenantA, `{"archived": false}`); resp.status != http.StatusOK {
		t.Fatalf("PATCH archived: %d %s", resp.status, resp.body)
	}
	if err := f.pool.QueryRow(context.Background(), `SELECT title, archived FROM conversations WHERE id = $1::uuid`,
		c.ID).Scan(&title, &archived); err != nil {
		t.Fatal(err)
	}
	if title != "Pension questions" || archived {
		t.Errorf("after archived=false: title %q archived %v", title, archived)
	}
	// Exactly 200 characters is allowed, multi-byte ones counted once.
	if resp := f.patch(path, tenantA, `{"title": "`+strings.Repeat("é", 200)+`"}`); resp.status != http.StatusOK {
		t.Errorf("200-character title: %d %s", resp.status, resp.body)
	}

	checkBadPatches(t, f, path)
}

// checkBadPatches: each malformed or oversized PATCH of path is refused
// with its status and code, and a PATCH of an unknown id is not found.
func checkBadPatches(t *testing.T, f *fixture, path string) {
	t.Helper()
	for name, tc := range map[string]struct {
		contentType, body string
		status            int
		code              string
	}{
		"title too long":   {"application/json", `{"title": "` + strings.Repeat("a", 201) + `"}`, 400, "invalid_request"},
		"title null":       {"application/json", `{"title": null}`, 400, "invalid_request"},
		"title not string": {"application/json", `{"title": 7}`, 400, "invalid_request"},
		"title newline":    {"application/json", `{"title": "a\nb"}`, 400, "invalid_request"},
		"archived string":  {"application/json", `{"archived": "yes"}`, 400, "invalid_request"},
		"unknown field":    {"application/json", `{"owner": "me"}`, 400, "invalid_request"},
		"empty object":     {"application/json", `{}`, 400, "invalid_request"},
		"not an object":    {"application/json", `[1]`, 400, "malformed_json"},
		"json null":        {"application/json", `null`, 400, "invalid_request"},
		"malformed":        {"application/json", `{"title": `, 400, "malformed_json"},
		"not json":         {"text/plain", `{"title": "x"}`, 415, "unsupported_media_type"},
		"too large":        {"application/json", `{"title": "` + strings.Repeat("a", httpapi.MaxBodyBytes) + `"}`, 413, "body_too_large"},
	} {
		resp := f.do(http.MethodPatch, path, tenantA, userA, tc.contentType, tc.body)
		if resp.status != tc.status || resp.errorCode(t) != tc.code {
			t.Errorf("%s: %d %s, want %d %s", name, resp.status, resp.body, tc.status, tc.code)
		}
	}
	if resp := f.patch("/conversations/00000000-0000-0000-0000-000000000000", tenantA, `{"title": "x"}`); resp.status != http.StatusNotFound {
		t.Errorf("PATCH unknown id: %d %s", resp.status, resp.body)
	}
}

func TestDeleteErasesEveryRow(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	doomed := f.seedFull(tenantA, "doomed")
	kept := f.seedFull(tenantA, "kept")

	before := f.rowCounts(doomed.ID)
	for table, n := range before {
		if n == 0 {
			t.Fatalf("seed left %s empty; the test would prove nothing", table)
		}
	}
	keptBefore := f.rowCounts(kept.ID)

	resp := f.do(http.MethodDelete, "/conversations/"+doomed.ID, tenantA, userA, "", "")
	if resp.status != http.StatusNoContent || len(resp.body) != 0 {
		t.Fatalf("DELETE: %d %s", resp.status, resp.body)
	}
	for table, n := range f.rowCounts(doomed.ID) {
		if n != 0 {
			t.Errorf("%s still holds %d rows of the deleted conversation", table, n)
		}
	}
	if after := f.rowCounts(kept.ID); !mapsEqual(after, keptBefore) {
		t.Errorf("the other conversation's rows changed: %v -> %v", keptBefore, after)
	}
	for _, path := range []string{"/conversations/" + doomed.ID, "/conversations/" + doomed.ID + "/export"} {
		if resp := f.get(path, tenantA); resp.status != http.StatusNotFound {
			t.Errorf("GET %s after delete: %d", path, resp.status)
		}
	}
	if resp := f.do(http.MethodDelete, "/conversations/"+doomed.ID, tenantA, userA, "", ""); resp.status != http.StatusNotFound {
		t.Errorf("second DELETE: %d", resp.status)
	}
	var list listBody
	f.get("/conversations", tenantA).decode(t, &list)
	if len(list.Conversations) != 1 || list.Conversations[0].ID != kept.ID {
		t.Errorf("list after delete = %+v", list.Conversations)
	}
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

type exportBody struct {
	Format       string                    `json:"format"`
	ExportedAt   time.Time                 `json:"exportedAt"`
	TenantID     string                    `json:"tenantId"`
	Conversation conversation.Conversation `json:"conversation"`
	Turns        []conversation.Turn       `json:"turns"`
	Context      *struct {
		Data      json.RawMessage `json:"data"`
		UpdatedAt time.Time       `json:"updatedAt"`
	} `json:"context"`
	ContextRequests []conversation.ContextRequest `json:"contextRequests"`
	SuppliedItems   []conversation.SuppliedItem   `json:"suppliedContextItems"`
	Feedback        []conversation.Feedback       `json:"feedback"`
}

func TestExportReturnsWhatTheDatabaseHolds(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	s := f.seedFull(tenantA, "export me")
	got := exportAsDownload(t, f, s.ID)
	checkExportedConversation(t, f, s.ID, got)
	checkExportedTurns(t, f, s.ID, got)
	checkExportedContext(t, f, s.ID, got)
	checkExportedRequests(t, f, s.ID, got)
	checkExportedItems(t, f, s.ID, got)
	checkExportedFeedback(t, f, s.ID, got)
}

// exportAsDownload exports conversation id as tenant A and checks it comes
// as a JSON attachment in the export envelope.
func exportAsDownload(t *testing.T, f *fixture, id string) exportBody {
	t.Helper()
	resp := f.get("/conversations/"+id+"/export", tenantA)
	if resp.status != http.StatusOK {
		t.Fatalf("export: %d %s", resp.status, resp.body)
	}
	if cd := resp.header.Get("Content-Disposition"); !strings.HasPrefix(cd, "attachment;") || !strings.Contains(cd, id) {
		t.Errorf("Content-Disposition = %q", cd)
	}
	if ct := resp.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q", ct)
	}
	var got exportBody
	resp.decode(t, &got)
	if got.Format != httpapi.ExportFormat || got.ExportedAt.IsZero() || got.TenantID != auth.TenantUUID(tenantA) {
		t.Errorf("envelope = %q %v %q", got.Format, got.ExportedAt, got.TenantID)
	}
	return got
}

// checkExportedConversation compares the export with the conversation row.
func checkExportedConversation(t *testing.T, f *fixture, id string, got exportBody) {
	t.Helper()
	var title, owner string
	var lastTurn int
	if err := f.pool.QueryRow(context.Background(), `SELECT title, owner_id, last_turn_number FROM conversations WHERE id = $1::uuid`,
		id).Scan(&title, &owner, &lastTurn); err != nil {
		t.Fatal(err)
	}
	if got.Conversation.ID != id || got.Conversation.Title != title || got.Conversation.OwnerID != owner ||
		got.Conversation.LastTurnNumber != lastTurn {
		t.Errorf("conversation = %+v", got.Conversation)
	}
}

// checkExportedTurns: every turn, with its texts and metadata.
func checkExportedTurns(t *testing.T, f *fixture, id string, got exportBody) {
	t.Helper()
	rows, err := f.pool.Query(context.Background(), `SELECT turn_number, user_text, assistant_text, metadata::text
		FROM conversation_turns WHERE conversation_id = $1::uuid ORDER BY turn_number`, id)
	if err != nil {
		t.Fatal(err)
	}
	var dbTurns []string
	for rows.Next() {
		var n int
		var user, assistant, metadata string
		if err := rows.Scan(&n, &user, &assistant, &metadata); err != nil {
			t.Fatal(err)
		}
		dbTurns = append(dbTurns, strings.Join([]string{string(rune('0' + n)), user, assistant, canonicalJSON(t, []byte(metadata))}, "|"))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	var exportedTurns []string
	for _, turn := range got.Turns {
		metadata, _ := json.Marshal(turn.Metadata)
		exportedTurns = append(exportedTurns, strings.Join([]string{string(rune('0' + turn.Number)), turn.UserText, turn.AssistantText, canonicalJSON(t, metadata)}, "|"))
	}
	if len(dbTurns) != 2 || !slices.Equal(exportedTurns, dbTurns) {
		t.Errorf("exported turns %q, database holds %q", exportedTurns, dbTurns)
	}
}

// checkExportedContext: the context document as stored.
func checkExportedContext(t *testing.T, f *fixture, id string, got exportBody) {
	t.Helper()
	var contextJSON []byte
	if err := f.pool.QueryRow(context.Background(), `SELECT context_json FROM conversation_context WHERE conversation_id = $1::uuid`,
		id).Scan(&contextJSON); err != nil {
		t.Fatal(err)
	}
	if got.Context == nil || canonicalJSON(t, got.Context.Data) != canonicalJSON(t, contextJSON) {
		t.Errorf("exported context %+v, database holds %s", got.Context, contextJSON)
	}
}

// checkExportedRequests: every context request, whatever its status.
func checkExportedRequests(t *testing.T, f *fixture, id string, got exportBody) {
	t.Helper()
	dbRequests := queryStrings(t, f.pool, `SELECT id::text || ':' || status FROM context_requests
		WHERE conversation_id = $1::uuid ORDER BY created_at, id`, id)
	var exportedRequests []string
	for _, r := range got.ContextRequests {
		exportedRequests = append(exportedRequests, r.ID+":"+r.Status)
		if len(r.Items) != 1 || r.Question != "How much tax do I owe?" {
			t.Errorf("request %s exported as %+v", r.ID, r)
		}
	}
	slices.Sort(dbRequests)
	slices.Sort(exportedRequests)
	if len(dbRequests) != 3 || !slices.Equal(exportedRequests, dbRequests) {
		t.Errorf("exported requests %v, database holds %v", exportedRequests, dbRequests)
	}
}

// checkExportedItems: every supplied item with its content.
func checkExportedItems(t *testing.T, f *fixture, id string, got exportBody) {
	t.Helper()
	dbItems := queryStrings(t, f.pool, `SELECT key || '=' || content || '@' || coalesce(request_id::text, '')
		FROM supplied_context_items WHERE conversation_id = $1::uuid`, id)
	var exportedItems []string
	for _, it := range got.SuppliedItems {
		exportedItems = append(exportedItems, it.Key+"="+it.Content+"@"+it.RequestID)
	}
	slices.Sort(dbItems)
	slices.Sort(exportedItems)
	if len(dbItems) != 2 || !slices.Equal(exportedItems, dbItems) {
		t.Errorf("exported items %v, database holds %v", exportedItems, dbItems)
	}
}

// queryStrings runs a query of one text column and returns its rows.
func queryStrings(t *testing.T, pool *pgxpool.Pool, sql string, args ...any) []string {
	t.Helper()
	rows, err := pool.Query(context.Background(), sql, args...)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func canonicalJSON(t *testing.T, raw []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	if m, ok := v.(map[string]any); ok && len(m) == 0 {
		v = nil
	}
	out, _ := json.Marshal(v)
	return string(out)
}

func TestOtherTenantSeesNothing(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	s := f.seedFull(tenantA, "private")
	before := f.rowCounts(s.ID)

	var list listBody
	resp := f.get("/conversations", tenantB)
	resp.decode(t, &list)
	if resp.status != http.StatusOK || len(list.Conversations) != 0 || list.NextCursor != nil {
		t.Errorf("tenant B lists %d %s", resp.status, resp.body)
	}
	// Tenant A's cursor does not open tenant A's list to tenant B.
	cursor := conversation.CursorAfter(conversation.Conversation{UpdatedAt: time.Now().Add(time.Hour), ID: s.ID}).Encode()
	f.get("/conversations?cursor="+cursor, tenantB).decode(t, &list)
	if len(list.Conversations) != 0 {
		t.Errorf("tenant B with a cursor lists %+v", list.Conversations)
	}

	id := "/conversations/" + s.ID
	for _, r := range []struct{ method, path, body string }{
		{http.MethodGet, id, ""},
		{http.MethodPatch, id, `{"title": "mine now", "archived": true}`},
		{http.MethodDelete, id, ""},
		{http.MethodGet, id + "/export", ""},
	} {
		resp := f.do(r.method, r.path, tenantB, userA, "application/json", r.body)
		if resp.status != http.StatusNotFound || resp.errorCode(t) != "conversation_not_found" {
			t.Errorf("tenant B %s %s: %d %s", r.method, r.path, resp.status, resp.body)
		}
	}
	if after := f.rowCounts(s.ID); !mapsEqual(after, before) {
		t.Errorf("tenant B changed tenant A's rows: %v -> %v", before, after)
	}
	var title string
	var archived bool
	if err := f.pool.QueryRow(context.Background(), `SELECT title, archived FROM conversations WHERE id = $1::uuid`,
		s.ID).Scan(&title, &archived); err != nil {
		t.Fatal(err)
	}
	if title != "private" || archived {
		t.Errorf("tenant B's PATCH landed: title %q archived %v", title, archived)
	}
}

// The context handoff routes live under /conversations/{id}/ too; the
// conversation routes must coexist with them.
func TestMethodsAuthAndNeighbourRoutes(t *testing.T) {
	f := newFixture(t, fixtureOptions{memory: true})
	c := f.create(tenantA, userA, "x")
	for _, r := range []struct{ method, path, allow string }{
		{http.MethodPost, "/conversations", "GET, HEAD"},
		{http.MethodDelete, "/conversations", "GET, HEAD"},
		{http.MethodPut, "/conversations/" + c.ID, "GET, HEAD, PATCH, DELETE"},
		{http.MethodPost, "/conversations/" + c.ID, "GET, HEAD, PATCH, DELETE"},
		{http.MethodPost, "/conversations/" + c.ID + "/export", "GET, HEAD"},
	} {
		resp := f.do(r.method, r.path, tenantA, userA, "application/json", "{}")
		if resp.status != http.StatusMethodNotAllowed || resp.errorCode(t) != "method_not_allowed" || resp.header.Get("Allow") != r.allow {
			t.Errorf("%s %s: %d Allow %q %s", r.method, r.path, resp.status, resp.header.Get("Allow"), resp.body)
		}
	}
	for _, r := range []struct{ method, path string }{
		{http.MethodGet, "/conversations"},
		{http.MethodGet, "/conversations/" + c.ID},
		{http.MethodPatch, "/conversations/" + c.ID},
		{http.MethodDelete, "/conversations/" + c.ID},
		{http.MethodGet, "/conversations/" + c.ID + "/export"},
	} {
		resp := f.do(r.method, r.path, "", "", "application/json", `{"title": "x"}`)
		if resp.status != http.StatusUnauthorized || resp.errorCode(t) != "unauthorized" {
			t.Errorf("anonymous %s %s: %d %s", r.method, r.path, resp.status, resp.body)
		}
	}
	// The neighbours' paths still answer with their own handlers.
	for _, r := range []struct{ method, path, allow string }{
		{http.MethodGet, "/conversations/" + c.ID + "/context-requests/r1", "POST"},
		{http.MethodGet, "/conversations/" + c.ID + "/context-items/i1", "DELETE"},
	} {
		resp := f.do(r.method, r.path, tenantA, userA, "", "")
		if resp.status != http.StatusMethodNotAllowed || resp.header.Get("Allow") != r.allow {
			t.Errorf("neighbour %s %s: %d Allow %q %s", r.method, r.path, resp.status, resp.header.Get("Allow"), resp.body)
		}
	}
	// The conversation is untouched by the neighbours' requests.
	if resp := f.get("/conversations/"+c.ID, tenantA); resp.status != http.StatusOK {
		t.Errorf("GET after neighbour routes: %d", resp.status)
	}
}
