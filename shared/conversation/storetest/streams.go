package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"

	"regintel/shared/conversation"
)

// StreamStore is a store that also records turn streams.
type StreamStore interface {
	Store
	conversation.Streams
	conversation.StreamFollowers
}

// RunStreams runs the contract of conversation.Streams, and of what the
// AI SDK's defaults need of a store.
func RunStreams(t *testing.T, newStore func(t *testing.T) StreamStore) {
	tests := []struct {
		name string
		run  func(t *testing.T, s StreamStore)
	}{
		{"RecordedEventsReplayInOrder", testStreamReplay},
		{"AnswerSoFarIsStoredWhileStreaming", testStreamAnswerSoFar},
		{"StopIsAskedOnlyOfARunningTurn", testStreamStop},
		{"NextTurnReplacesTheRecording", testStreamNextTurn},
		{"StopBeforeTheFirstWriteIsKept", testStreamStopBeforeFirstWrite},
		{"OtherTenantOrUserIsNotFound", testStreamIsolation},
		{"FollowersAreBounded", testFollowersAreBounded},
		{"FollowerPlacesLapse", testFollowerPlacesLapse},
		{"ConcurrentFollowersHoldTheLimit", testConcurrentFollowersHoldTheLimit},
		// What the AI SDK's defaults need: a chosen id, regenerate.
		{"StartUnderTakenIDIsErrIDTaken", testStartUnderTakenID},
		{"RegenerateRestartsTheLastTurn", testRegenerateRestartsTheLastTurn},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, newStore(t))
		})
	}
}

// startStreaming creates a conversation whose first turn is reserved and
// holds the lease.
func startStreaming(t *testing.T, s StreamStore, tenant string) (conversation.TurnState, string) {
	t.Helper()
	st, err := s.StartConversation(userCtx, conversation.Conversation{TenantID: tenant, OwnerID: testUser, Title: "t"},
		conversation.TurnStart{LeaseFor: time.Minute, Reserve: &conversation.Turn{UserText: "q1"}})
	if err != nil || st.Reserved == nil {
		t.Fatalf("StartConversation = %+v, %v", st, err)
	}
	return st, st.Conversation.ID
}

func events(from int, names ...string) []conversation.StreamEvent {
	out := make([]conversation.StreamEvent, len(names))
	for i, n := range names {
		out[i] = conversation.StreamEvent{Seq: from + i, Name: n, Data: json.RawMessage(fmt.Sprintf(`{"n":%d}`, from+i))}
	}
	return out
}

func mustAppendStream(t *testing.T, s StreamStore, tenant, id string, b conversation.StreamBatch) bool {
	t.Helper()
	stop, err := s.AppendStream(userCtx, tenant, id, b)
	if err != nil {
		t.Fatalf("AppendStream(%d events from %d): %v", len(b.Events), b.Events[0].Seq, err)
	}
	return stop
}

func mustReadStream(t *testing.T, s StreamStore, tenant, id string, after int) conversation.TurnStream {
	t.Helper()
	ts, err := s.ReadStream(userCtx, tenant, id, after)
	if err != nil {
		t.Fatalf("ReadStream: %v", err)
	}
	return ts
}

func seqsAndData(evs []conversation.StreamEvent) string {
	out := ""
	for _, ev := range evs {
		out += fmt.Sprintf("%d:%s:%s ", ev.Seq, ev.Name, ev.Data)
	}
	return out
}

func testStreamReplay(t *testing.T, s StreamStore) {
	tenant := newTenant()
	if ts := mustReadStream(t, s, tenant, mustCreate(t, s, tenant).ID, -1); ts.TurnNumber != 0 || ts.Running || len(ts.Events) != 0 {
		t.Fatalf("nothing recorded: %+v", ts)
	}
	st, id := startStreaming(t, s, tenant)
	mustAppendStream(t, s, tenant, id, conversation.StreamBatch{TurnNumber: 1, Events: events(0, "start"), Format: "ui"})
	mustAppendStream(t, s, tenant, id, conversation.StreamBatch{TurnNumber: 1, Events: events(1, "message", "message")})
	ts := mustReadStream(t, s, tenant, id, -1)
	if ts.Format != "ui" {
		t.Errorf("format %q, want the first batch's %q", ts.Format, "ui")
	}
	if want := `0:start:{"n":0} 1:message:{"n":1} 2:message:{"n":2} `; ts.TurnNumber != 1 || !ts.Running || seqsAndData(ts.Events) != want {
		t.Fatalf("ReadStream(-1) = turn %d running %v %q, want turn 1 running %q", ts.TurnNumber, ts.Running, seqsAndData(ts.Events), want)
	}
	if ts := mustReadStream(t, s, tenant, id, 1); seqsAndData(ts.Events) != `2:message:{"n":2} ` {
		t.Fatalf("ReadStream(1) = %q", seqsAndData(ts.Events))
	}
	if _, err := s.AppendStream(userCtx, tenant, id, conversation.StreamBatch{TurnNumber: 2, Events: events(3, "message")}); err == nil {
		t.Fatal("AppendStream for a turn not being recorded succeeded")
	}
	err := s.FinishTurn(userCtx, tenant, id, conversation.Turn{Number: 1, AssistantText: "a", Status: conversation.TurnOK, LeaseID: st.LeaseID}, conversation.TurnFinish{})
	if err != nil {
		t.Fatal(err)
	}
	if ts := mustReadStream(t, s, tenant, id, -1); ts.Running || len(ts.Events) != 3 {
		t.Fatalf("after the turn finished: running %v, %d events; want not running, 3 events", ts.Running, len(ts.Events))
	}
}

func testStreamAnswerSoFar(t *testing.T, s StreamStore) {
	tenant := newTenant()
	_, id := startStreaming(t, s, tenant)
	partial := "The VAT rate"
	mustAppendStream(t, s, tenant, id, conversation.StreamBatch{TurnNumber: 1, Events: events(0, "start", "message"), AnswerSoFar: &partial})
	d, err := s.GetConversation(userCtx, tenant, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Turns) != 1 || d.Turns[0].AssistantText != partial || d.Turns[0].Status != conversation.TurnStreaming {
		t.Fatalf("turns while streaming = %+v, want one streaming turn with %q", d.Turns, partial)
	}
}

func testStreamStop(t *testing.T, s StreamStore) {
	tenant := newTenant()
	st, id := startStreaming(t, s, tenant)
	if mustAppendStream(t, s, tenant, id, conversation.StreamBatch{TurnNumber: 1, Events: events(0, "start")}) {
		t.Fatal("stop reported before any was asked")
	}
	if ok, err := s.StopStream(userCtx, tenant, id); !ok || err != nil {
		t.Fatalf("StopStream of a running turn = %v, %v", ok, err)
	}
	if !mustAppendStream(t, s, tenant, id, conversation.StreamBatch{TurnNumber: 1, Events: events(1, "message")}) {
		t.Fatal("the next write did not report the stop")
	}
	err := s.FinishTurn(userCtx, tenant, id, conversation.Turn{Number: 1, Status: conversation.TurnInterrupted, LeaseID: st.LeaseID}, conversation.TurnFinish{})
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := s.StopStream(userCtx, tenant, id); ok || err != nil {
		t.Fatalf("StopStream with no running turn = %v, %v; want false, nil", ok, err)
	}
}

func testStreamNextTurn(t *testing.T, s StreamStore) {
	tenant := newTenant()
	st, id := startStreaming(t, s, tenant)
	mustAppendStream(t, s, tenant, id, conversation.StreamBatch{TurnNumber: 1, Events: events(0, "start", "message", "done")})
	if ok, _ := s.StopStream(userCtx, tenant, id); !ok {
		t.Fatal("StopStream of turn 1 found nothing running")
	}
	if err := s.FinishTurn(userCtx, tenant, id, conversation.Turn{Number: 1, Status: conversation.TurnOK, LeaseID: st.LeaseID}, conversation.TurnFinish{}); err != nil {
		t.Fatal(err)
	}
	next, err := s.StartTurn(userCtx, tenant, id, conversation.TurnStart{LeaseFor: time.Minute, Reserve: &conversation.Turn{UserText: "q2"}})
	if err != nil || next.Reserved == nil || next.Reserved.Number != 2 {
		t.Fatalf("StartTurn = %+v, %v", next, err)
	}
	// Before turn 2 records anything it runs, and turn 1's events are not its.
	if ts := mustReadStream(t, s, tenant, id, -1); ts.TurnNumber != 2 || !ts.Running || len(ts.Events) != 0 {
		t.Fatalf("turn 2 before its first write: turn %d running %v %q", ts.TurnNumber, ts.Running, seqsAndData(ts.Events))
	}
	if mustAppendStream(t, s, tenant, id, conversation.StreamBatch{TurnNumber: 2, Events: events(0, "start")}) {
		t.Fatal("turn 2 inherited turn 1's stop")
	}
	ts := mustReadStream(t, s, tenant, id, -1)
	if ts.TurnNumber != 2 || !ts.Running || seqsAndData(ts.Events) != `0:start:{"n":0} ` {
		t.Fatalf("after turn 2 started recording: turn %d running %v %q", ts.TurnNumber, ts.Running, seqsAndData(ts.Events))
	}
}

func testStreamIsolation(t *testing.T, s StreamStore) {
	tenant := newTenant()
	_, id := startStreaming(t, s, tenant)
	mustAppendStream(t, s, tenant, id, conversation.StreamBatch{TurnNumber: 1, Events: events(0, "start")})
	other := conversation.WithOwner(context.Background(), "user-2")
	callers := map[string]struct {
		ctx    context.Context
		tenant string
	}{"another tenant": {userCtx, newTenant()}, "another user": {other, tenant}, "an unknown id": {userCtx, tenant}}
	for who, c := range callers {
		target := id
		if who == "an unknown id" {
			target = uuid.NewString()
		}
		if _, err := s.ReadStream(c.ctx, c.tenant, target, -1); !errors.Is(err, conversation.ErrNotFound) {
			t.Errorf("ReadStream by %s: %v, want ErrNotFound", who, err)
		}
		if _, err := s.StopStream(c.ctx, c.tenant, target); !errors.Is(err, conversation.ErrNotFound) {
			t.Errorf("StopStream by %s: %v, want ErrNotFound", who, err)
		}
		if _, err := s.AppendStream(c.ctx, c.tenant, target, conversation.StreamBatch{TurnNumber: 1, Events: events(1, "message")}); err == nil {
			t.Errorf("AppendStream by %s succeeded", who)
		}
	}
	if ts := mustReadStream(t, s, tenant, id, -1); len(ts.Events) != 1 || !ts.Running {
		t.Fatalf("the owner's stream after the others tried: %+v", ts)
	}
}

// A stop asked of a running turn before its first write is read by that
// write; once the turn's last batch has read it, a retry starts with none.
func testStreamStopBeforeFirstWrite(t *testing.T, s StreamStore) {
	tenant := newTenant()
	st, id := startStreaming(t, s, tenant)
	mustAppendStream(t, s, tenant, id, conversation.StreamBatch{TurnNumber: 1, Events: events(0, "start", "done"), Final: true})
	if err := s.FinishTurn(userCtx, tenant, id, conversation.Turn{Number: 1, Status: conversation.TurnOK, LeaseID: st.LeaseID}, conversation.TurnFinish{}); err != nil {
		t.Fatal(err)
	}
	next, err := s.StartTurn(userCtx, tenant, id, conversation.TurnStart{LeaseFor: time.Minute, Reserve: &conversation.Turn{UserText: "q2"}})
	if err != nil || next.Reserved == nil {
		t.Fatalf("StartTurn = %+v, %v", next, err)
	}
	if ok, err := s.StopStream(userCtx, tenant, id); !ok || err != nil {
		t.Fatalf("StopStream before turn 2's first write = %v, %v; want true", ok, err)
	}
	if ts := mustReadStream(t, s, tenant, id, -1); ts.TurnNumber != 2 || !ts.Running || len(ts.Events) != 0 {
		t.Fatalf("after the early stop: turn %d running %v %q", ts.TurnNumber, ts.Running, seqsAndData(ts.Events))
	}
	if !mustAppendStream(t, s, tenant, id, conversation.StreamBatch{TurnNumber: 2, Events: events(0, "start")}) {
		t.Fatal("turn 2's first write did not read the stop asked before it")
	}
	if !mustAppendStream(t, s, tenant, id, conversation.StreamBatch{TurnNumber: 2, Events: events(1, "done"), Final: true}) {
		t.Fatal("the last batch did not read the stop")
	}
	if err := s.FinishTurn(userCtx, tenant, id, conversation.Turn{Number: 2, Status: conversation.TurnInterrupted, LeaseID: next.LeaseID}, conversation.TurnFinish{}); err != nil {
		t.Fatal(err)
	}
	retry, err := s.StartTurn(userCtx, tenant, id, conversation.TurnStart{LeaseFor: time.Minute, Retry: true})
	if err != nil || retry.Reserved == nil || retry.Reserved.Number != 2 {
		t.Fatalf("retry = %+v, %v", retry.Reserved, err)
	}
	if mustAppendStream(t, s, tenant, id, conversation.StreamBatch{TurnNumber: 2, Events: events(0, "start")}) {
		t.Fatal("the retry inherited the spent stop")
	}
}
