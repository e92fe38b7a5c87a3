package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"regintel/shared/conversation"
	convpg "regintel/shared/conversation/postgres"
	"regintel/shared/conversation/storetest"
	"regintel/shared/pgpool/pgtest"
)

func TestHandoffContract(t *testing.T) {
	store := convpg.New(pgtest.NewMigratedPool(t, 25))
	storetest.RunHandoff(t, func(*testing.T) storetest.HandoffStore { return store })
}

// LoadTurnState brings the handoff state along in its one round trip, so a
// turn needs a single read before it can stream.
func TestLoadTurnStateCarriesTheHandoffState(t *testing.T) {
	ctx := context.Background()
	store := convpg.New(pgtest.NewMigratedPool(t, 2))
	tenant := uuid.NewString()
	c, err := store.CreateConversation(ctx, conversation.Conversation{TenantID: tenant, OwnerID: "u"})
	if err != nil {
		t.Fatal(err)
	}
	r, err := store.CreateContextRequest(ctx, conversation.ContextRequest{TenantID: tenant, ConversationID: c.ID, Question: "q",
		Items: []conversation.RequestedItem{{Key: "income", Kind: conversation.KindProfileFact, Required: true}}, ExpiresAt: time.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.SupplyItems(ctx, tenant, c.ID, []conversation.SuppliedItem{{Key: "note", Kind: conversation.KindText, Content: "x"}}); err != nil {
		t.Fatal(err)
	}
	st, err := store.LoadTurnState(ctx, tenant, c.ID, 5)
	if err != nil || st.HandoffErr != nil || st.Handoff == nil {
		t.Fatalf("state %+v err %v", st, err)
	}
	if st.Handoff.Pending == nil || st.Handoff.Pending.ID != r.ID || len(st.Handoff.Items) != 1 || st.Handoff.Items[0].Key != "note" {
		t.Fatalf("handoff = %+v", st.Handoff)
	}
}
