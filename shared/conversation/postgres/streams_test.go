package postgres_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"

	"regintel/shared/conversation"
	convpg "regintel/shared/conversation/postgres"
	"regintel/shared/conversation/storetest"
	"regintel/shared/pgpool/pgtest"
)

func TestStreamsContract(t *testing.T) {
	for _, cache := range []bool{true, false} {
		t.Run(fmt.Sprintf("statementCache=%v", cache), func(t *testing.T) {
			_, runtime := pgtest.NewRuntimePoolsCaching(t, 5, cache)
			store := convpg.New(runtime)
			storetest.RunStreams(t, func(*testing.T) storetest.StreamStore { return store })
		})
	}
}

// Recording and reading a stream cost one round trip per call.
func TestStreamCallsAreOneRoundTrip(t *testing.T) {
	ctx := conversation.WithOwner(context.Background(), "u")
	pool, tracer := tracedPool(t, ctx)
	store := convpg.New(pool)
	st, err := store.StartConversation(ctx, conversation.Conversation{TenantID: uuid.NewString(), OwnerID: "u"},
		conversation.TurnStart{Reserve: &conversation.Turn{UserText: "q"}})
	if err != nil {
		t.Fatal(err)
	}
	tenant, id := st.Conversation.TenantID, st.Conversation.ID
	tracer.take()
	check := func(op string) {
		t.Helper()
		if q, b := tracer.take(); q != 0 || b != 1 {
			t.Errorf("%s sent %d queries and %d batches, want one batch", op, q, b)
		}
	}
	answer := "so far"
	first := conversation.StreamBatch{TurnNumber: 1, Events: []conversation.StreamEvent{{Seq: 0, Name: "start", Data: []byte(`{}`)}}}
	if _, err := store.AppendStream(ctx, tenant, id, first); err != nil {
		t.Fatal(err)
	}
	check("AppendStream (first batch)")
	next := conversation.StreamBatch{TurnNumber: 1, Events: []conversation.StreamEvent{{Seq: 1, Name: "message", Data: []byte(`{"text":"so far"}`)}}, AnswerSoFar: &answer}
	if _, err := store.AppendStream(ctx, tenant, id, next); err != nil {
		t.Fatal(err)
	}
	check("AppendStream with the answer so far")
	if ts, err := store.ReadStream(ctx, tenant, id, -1); err != nil || len(ts.Events) != 2 {
		t.Fatalf("ReadStream = %+v, %v", ts, err)
	}
	check("ReadStream")
	if ok, err := store.StopStream(ctx, tenant, id); err != nil || !ok {
		t.Fatalf("StopStream = %v, %v", ok, err)
	}
	check("StopStream of a running turn")
	place := uuid.NewString()
	if err := store.FollowStream(ctx, tenant, id, place, 8, time.Minute); err != nil {
		t.Fatal(err)
	}
	check("FollowStream")
	if err := store.UnfollowStream(ctx, tenant, id, place); err != nil {
		t.Fatal(err)
	}
	check("UnfollowStream")
}
