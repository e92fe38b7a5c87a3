package memory

import (
	"testing"
	"time"
)

// The behaviour shared with graph/bolt is tested by graphtest (see
// conformance_test.go); this covers the helpers only this store has.

func TestRejectsNonWhitelisted(t *testing.T) {
	s := New()
	if err := s.UpsertNode("User", "u1", nil, time.Now()); err == nil {
		t.Error("non-whitelisted label accepted")
	}
	if err := s.UpsertEdge("a", "OWNS", "b"); err == nil {
		t.Error("non-whitelisted relationship accepted")
	}
}
