package pii

import (
	"slices"
	"strings"
	"sync"
	"time"
)

// Short texts come back again and again (a concept's label, kind and
// definition on every turn that names it), so FindKinds remembers what
// it found in them. Detection is a function of the text, the kinds asked
// for and the year (see adultYear); the memo is emptied when it is full
// or the year turns.
const (
	memoMaxText    = 256
	memoMaxEntries = 8192
)

type findMemo struct {
	mu    sync.Mutex
	year  int
	found map[string][]Match
}

var shortTexts findMemo

func memoKey(text string, kinds []Kind) string {
	var b strings.Builder
	b.Grow(len(text) + 1 + 4*len(kinds))
	for _, k := range kinds {
		b.WriteString(string(k))
		b.WriteByte(',')
	}
	b.WriteByte(0)
	b.WriteString(text)
	return b.String()
}

func (m *findMemo) get(key string) ([]Match, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.year != time.Now().Year() {
		m.found, m.year = nil, time.Now().Year()
	}
	ms, ok := m.found[key]
	return slices.Clone(ms), ok
}

func (m *findMemo) put(key string, ms []Match) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.found == nil || len(m.found) >= memoMaxEntries {
		m.found = make(map[string][]Match)
	}
	m.found[key] = slices.Clone(ms)
}
