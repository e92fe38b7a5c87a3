package storetest

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"regintel/shared/conversation"
)

// A search lists the conversations holding every word, ignoring case, in
// the title or in any turn's question or answer; LIKE's wildcards match
// themselves; pages work as without it; a blank or long search is refused.
func testSearchTitleAndTurns(t *testing.T, s Store) {
	tenant := newTenant()
	conv := func(title string, turns ...[2]string) string {
		t.Helper()
		c := adminCreate(t, s, tenant, testUser)
		if _, err := s.UpdateConversation(userCtx, tenant, c.ID, conversation.Update{Title: &title}); err != nil {
			t.Fatal(err)
		}
		for _, qa := range turns {
			mustAppend(t, s, tenant, c.ID, conversation.Turn{UserText: qa[0], AssistantText: qa[1]})
		}
		return c.ID
	}
	byTitle := conv("Pension LUMP sums")
	byQuestion := conv("untitled", [2]string{"What is the lump sum tax-free limit?", "It depends."})
	byAnswer := conv("other", [2]string{"Retirement?", "A Lump-sum of up to 200,000 EUR is tax free."}, [2]string{"thanks", "welcome"})
	split := conv("Pension questions", [2]string{"about a lump", "ok"})
	percent := conv("VAT at 13.5% on meals", [2]string{"x", "y"})
	underscore := conv("PRSI class_a", [2]string{"x", "y"})
	otherOwner := conversation.WithOwner(userCtx, "user-2")
	// Another user's conversation never matches.
	if _, err := s.CreateConversation(otherOwner, conversation.Conversation{TenantID: tenant, OwnerID: "user-2", Title: "lump sum"}); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		search string
		want   []string
	}{
		{"lump", []string{byTitle, byQuestion, byAnswer, split}},
		{"LUMP SUM", []string{byTitle, byQuestion, byAnswer}},
		{"pension lump", []string{byTitle, split}},
		{"tax-free", []string{byQuestion}},
		{"13.5%", []string{percent}},
		{"%", []string{percent}},
		{"13_5", nil},
		{"class_a", []string{underscore}},
		{"nowhere", nil},
	} {
		got := ids(listAll(t, s, tenant, conversation.ListQuery{Search: tc.search, Limit: 2}))
		slices.Sort(got)
		want := slices.Clone(tc.want)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("search %q = %v, want %v", tc.search, got, want)
		}
	}
	for _, bad := range []string{" \t ", strings.Repeat("a", conversation.MaxSearchRunes+1), "lump\x00"} {
		if _, err := s.ListConversations(userCtx, tenant, conversation.ListQuery{Search: bad}); !errors.Is(err, conversation.ErrInvalidSearch) {
			t.Errorf("search %q = %v, want ErrInvalidSearch", bad, err)
		}
	}
}
