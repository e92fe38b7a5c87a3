package storetest

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"regintel/shared/conversation"
)

// A conversation's stream has at most max followers at once: a place is
// taken while fewer are held, renewed by its holder and given back on
// leaving; another tenant or user finds no conversation.
func testFollowersAreBounded(t *testing.T, s StreamStore) {
	const max = 3
	tenant := newTenant()
	_, id := startStreaming(t, s, tenant)
	follow := func(place string, lease time.Duration) error {
		return s.FollowStream(userCtx, tenant, id, place, max, lease)
	}
	places := []string{uuid.NewString(), uuid.NewString(), uuid.NewString()}
	for i, p := range places {
		if err := follow(p, time.Minute); err != nil {
			t.Fatalf("follower %d of %d: %v", i+1, max, err)
		}
	}
	late := uuid.NewString()
	steps := []struct {
		name string
		do   func() error
		want error
	}{
		{"one more than the limit", func() error { return follow(late, time.Minute) }, conversation.ErrTooManyFollowers},
		{"a holder renews its place", func() error { return follow(places[0], time.Minute) }, nil},
		{"a follower leaves", func() error { return s.UnfollowStream(userCtx, tenant, id, places[1]) }, nil},
		{"its place is taken", func() error { return follow(late, time.Minute) }, nil},
		{"and the next is refused", func() error { return follow(uuid.NewString(), time.Minute) }, conversation.ErrTooManyFollowers},
		{"another user", func() error {
			return s.FollowStream(conversation.WithOwner(context.Background(), "user-2"), tenant, id, uuid.NewString(), max, time.Minute)
		}, conversation.ErrNotFound},
		{"another tenant", func() error {
			return s.FollowStream(userCtx, newTenant(), id, uuid.NewString(), max, time.Minute)
		}, conversation.ErrNotFound},
	}
	for _, step := range steps {
		if err := step.do(); !errors.Is(err, step.want) && (err != nil || step.want != nil) {
			t.Errorf("%s: %v, want %v", step.name, err, step.want)
		}
	}
}

// A follower that died holds its place only for its lease.
func testFollowerPlacesLapse(t *testing.T, s StreamStore) {
	const max = 3
	tenant := newTenant()
	_, short := startStreaming(t, s, tenant)
	for range max {
		if err := s.FollowStream(userCtx, tenant, short, uuid.NewString(), max, 100*time.Millisecond); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.FollowStream(userCtx, tenant, short, uuid.NewString(), max, time.Minute); !errors.Is(err, conversation.ErrTooManyFollowers) {
		t.Fatalf("a follower while the places are held: %v, want ErrTooManyFollowers", err)
	}
	time.Sleep(150 * time.Millisecond) // their processes are gone; the leases lapse
	if err := s.FollowStream(userCtx, tenant, short, uuid.NewString(), max, time.Minute); err != nil {
		t.Errorf("a follower once the places lapsed: %v", err)
	}
}

// Twenty followers at once: exactly max get a place.
func testConcurrentFollowersHoldTheLimit(t *testing.T, s StreamStore) {
	const max = 3
	tenant := newTenant()
	_, raced := startStreaming(t, s, tenant)
	var wg sync.WaitGroup
	var admitted, refused atomic.Int32
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			switch err := s.FollowStream(userCtx, tenant, raced, uuid.NewString(), max, time.Minute); {
			case err == nil:
				admitted.Add(1)
			case errors.Is(err, conversation.ErrTooManyFollowers):
				refused.Add(1)
			default:
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if admitted.Load() != max || refused.Load() != 20-max {
		t.Errorf("20 concurrent followers: %d admitted, %d refused; want %d and %d", admitted.Load(), refused.Load(), max, 20-max)
	}
}
