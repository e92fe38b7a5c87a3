package memo

import (
	"fmt"
	"sync"
	"testing"
)

func TestRemembersUpToItsBound(t *testing.T) {
	m := New[int](3)
	for i := range 3 {
		m.Put(fmt.Sprint(i), i)
	}
	if v, ok := m.Get("2"); !ok || v != 2 || m.Len() != 3 {
		t.Fatalf("get 2 = %d, %v; len %d", v, ok, m.Len())
	}
	if _, ok := m.Get("9"); ok {
		t.Fatal("found a key never put")
	}
	m.Put("3", 3) // full: emptied, then holds the new one
	if _, ok := m.Get("0"); ok || m.Len() != 1 {
		t.Fatalf("after the bound: len %d", m.Len())
	}
	if v, ok := m.Get("3"); !ok || v != 3 {
		t.Fatalf("get 3 = %d, %v", v, ok)
	}
}

func TestConcurrentUse(t *testing.T) {
	m := New[string](64)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 1000 {
				k := fmt.Sprint(g, i%100)
				m.Put(k, k)
				if v, ok := m.Get(k); ok && v != k {
					t.Errorf("got %q for %q", v, k)
				}
			}
		})
	}
	wg.Wait()
	if m.Len() > 64 {
		t.Fatalf("holds %d, bound 64", m.Len())
	}
}
