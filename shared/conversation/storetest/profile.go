package storetest

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"regintel/shared/conversation"
)

func sameProfile(got *conversation.Profile, want conversation.Profile) bool {
	return got != nil && got.PersonaType == want.PersonaType && slices.Equal(got.Jurisdictions, want.Jurisdictions)
}

// profileEverywhere checks that every read of the conversation shows want.
func profileEverywhere(t *testing.T, s Store, tenantID, id string, want conversation.Profile) {
	t.Helper()
	ctx := userCtx
	if st := mustLoad(t, s, tenantID, id, 5); !sameProfile(st.Conversation.Profile, want) {
		t.Errorf("LoadTurnState profile = %+v, want %+v", st.Conversation.Profile, want)
	}
	d, err := s.GetConversation(ctx, tenantID, id)
	if err != nil || !sameProfile(d.Conversation.Profile, want) {
		t.Errorf("GetConversation profile = %+v (err %v), want %+v", d.Conversation.Profile, err, want)
	}
	export, err := s.ExportConversation(ctx, tenantID, id)
	if err != nil || !sameProfile(export.Conversation.Profile, want) {
		t.Errorf("ExportConversation profile = %+v (err %v), want %+v", export.Conversation.Profile, err, want)
	}
	page, err := s.ListConversations(ctx, tenantID, conversation.ListQuery{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range page.Conversations {
		if c.ID == id && !sameProfile(c.Profile, want) {
			t.Errorf("ListConversations profile = %+v, want %+v", c.Profile, want)
		}
	}
}

func testProfileAtCreation(t *testing.T, s Store) {
	tenant := newTenant()
	want := conversation.Profile{PersonaType: "self-employed", Jurisdictions: []string{"IE", "EU"}}
	c, err := s.CreateConversation(userCtx, conversation.Conversation{
		TenantID: tenant, OwnerID: testUser, Profile: &conversation.Profile{PersonaType: want.PersonaType, Jurisdictions: slices.Clone(want.Jurisdictions)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !sameProfile(c.Profile, want) {
		t.Fatalf("created with profile %+v", c.Profile)
	}
	profileEverywhere(t, s, tenant, c.ID, want)

	// A profile without jurisdictions comes back with an empty list.
	bare, err := s.CreateConversation(userCtx, conversation.Conversation{
		TenantID: tenant, OwnerID: testUser, Profile: &conversation.Profile{PersonaType: "retired"},
	})
	if err != nil {
		t.Fatal(err)
	}
	st := mustLoad(t, s, tenant, bare.ID, 0)
	if st.Conversation.Profile == nil || st.Conversation.Profile.PersonaType != "retired" || st.Conversation.Profile.Jurisdictions == nil {
		t.Errorf("profile without jurisdictions loads as %+v, want an empty non-nil list", st.Conversation.Profile)
	}
}

func testTurnReplacesProfile(t *testing.T, s Store) {
	ctx := userCtx
	tenant := newTenant()
	c := mustCreate(t, s, tenant)

	first := conversation.Profile{PersonaType: "employee", Jurisdictions: []string{"IE"}}
	given := conversation.Profile{PersonaType: first.PersonaType, Jurisdictions: slices.Clone(first.Jurisdictions)}
	mustAppend(t, s, tenant, c.ID, conversation.Turn{UserText: "q1", Profile: &given})
	given.Jurisdictions[0] = "changed after the call"
	profileEverywhere(t, s, tenant, c.ID, first)

	// A turn without a profile keeps the remembered one.
	mustAppend(t, s, tenant, c.ID, conversation.Turn{UserText: "q2"})
	profileEverywhere(t, s, tenant, c.ID, first)

	second := conversation.Profile{PersonaType: "landlord", Jurisdictions: []string{"UK", "IE"}}
	mustAppend(t, s, tenant, c.ID, conversation.Turn{UserText: "q3", Profile: &second})
	profileEverywhere(t, s, tenant, c.ID, second)

	st := mustLoad(t, s, tenant, c.ID, 5)
	if st.Conversation.LastTurnNumber != 3 || len(st.History) != 3 {
		t.Fatalf("turns with profiles: last=%d history=%d", st.Conversation.LastTurnNumber, len(st.History))
	}
	for _, turn := range st.History {
		if turn.Profile != nil {
			t.Errorf("turn %d is read back with a profile %+v; the profile belongs to the conversation", turn.Number, turn.Profile)
		}
	}

	// Another tenant's turn cannot change it.
	intruder := conversation.Profile{PersonaType: "intruder"}
	if _, err := s.AppendTurn(ctx, newTenant(), c.ID, conversation.Turn{UserText: "x", Profile: &intruder}); !errors.Is(err, conversation.ErrNotFound) {
		t.Errorf("AppendTurn from another tenant: %v, want ErrNotFound", err)
	}
	profileEverywhere(t, s, tenant, c.ID, second)
}

// The profile is written with the turn or not at all.
func testRefusedTurnLeavesProfile(t *testing.T, s Store) {
	tenant := newTenant()
	c := mustCreate(t, s, tenant)
	kept := conversation.Profile{PersonaType: "student", Jurisdictions: []string{"IE"}}
	mustAppend(t, s, tenant, c.ID, conversation.Turn{UserText: "q1", Profile: &kept})

	other := conversation.Profile{PersonaType: "pensioner", Jurisdictions: []string{"UK"}}
	refused := []conversation.Turn{
		{UserText: "bad status", Status: "failed", Profile: &other},
		{UserText: "unknown status", Status: "done", Profile: &other},
	}
	for _, turn := range refused {
		if _, err := s.AppendTurn(userCtx, tenant, c.ID, turn); err == nil {
			t.Fatalf("AppendTurn(%q) was accepted", turn.UserText)
		}
	}
	profileEverywhere(t, s, tenant, c.ID, kept)
	if st := mustLoad(t, s, tenant, c.ID, 5); st.Conversation.LastTurnNumber != 1 {
		t.Errorf("refused turns moved the turn counter to %d", st.Conversation.LastTurnNumber)
	}
}

func testPatchSetsProfile(t *testing.T, s Store) {
	ctx := userCtx
	tenant := newTenant()
	c := mustCreate(t, s, tenant)
	before := mustLoad(t, s, tenant, c.ID, 0).Conversation

	want := conversation.Profile{PersonaType: "sole trader", Jurisdictions: []string{"IE"}}
	updated, err := s.UpdateConversation(ctx, tenant, c.ID, conversation.Update{
		Profile: &conversation.Profile{PersonaType: "  sole trader ", Jurisdictions: []string{"IE"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	// Only the profile changes, and a patch is not activity.
	if !sameProfile(updated.Profile, want) || updated.Title != before.Title || updated.Archived ||
		!updated.UpdatedAt.Equal(before.UpdatedAt) {
		t.Errorf("patch returned %+v (profile %+v), before %+v", updated, updated.Profile, before)
	}
	profileEverywhere(t, s, tenant, c.ID, want)

	// A title-only patch keeps the profile.
	if _, err := s.UpdateConversation(ctx, tenant, c.ID, conversation.Update{Title: new("Renamed")}); err != nil {
		t.Fatal(err)
	}
	profileEverywhere(t, s, tenant, c.ID, want)

	for name, bad := range map[string]conversation.Profile{
		"long persona":    {PersonaType: strings.Repeat("x", conversation.MaxPersonaRunes+1)},
		"persona newline": {PersonaType: "a\nb"},
		"empty code":      {Jurisdictions: []string{""}},
		"unknown code":    {Jurisdictions: []string{"XX"}},
		"long code":       {Jurisdictions: []string{strings.Repeat("X", 17)}},
		"too many codes":  {Jurisdictions: slices.Repeat([]string{"IE"}, conversation.MaxProfileJurisdictions+1)},
	} {
		if _, err := s.UpdateConversation(ctx, tenant, c.ID, conversation.Update{Profile: &bad}); !errors.Is(err, conversation.ErrInvalidUpdate) {
			t.Errorf("%s: %v, want ErrInvalidUpdate", name, err)
		}
	}
	profileEverywhere(t, s, tenant, c.ID, want)

	intruder := conversation.Profile{PersonaType: "intruder"}
	if _, err := s.UpdateConversation(ctx, newTenant(), c.ID, conversation.Update{Profile: &intruder}); !errors.Is(err, conversation.ErrNotFound) {
		t.Errorf("patch from another tenant: %v, want ErrNotFound", err)
	}
	profileEverywhere(t, s, tenant, c.ID, want)
}
