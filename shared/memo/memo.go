// Package memo remembers the answers of pure functions of short texts,
// such as the personal-data checks a concept's label passes on every turn
// that names it. A Map holds up to its bound and is emptied when full, so
// its memory stays bounded whatever the inputs.
package memo

import "sync"

// ShortText is the longest text worth remembering an answer for: labels,
// kinds and definitions are shorter; answers and messages are longer and
// rarely come back.
const ShortText = 256

// Map remembers values by key; it is safe for concurrent use. A value
// is shared by every caller that gets it: store values no caller changes
// (or copies).
type Map[V any] struct {
	mu     sync.Mutex
	bound  int
	values map[string]V
}

// New is a Map holding at most bound values.
func New[V any](bound int) *Map[V] { return &Map[V]{bound: bound} }

// Get returns the value remembered for key.
func (m *Map[V]) Get(key string) (V, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.values[key]
	return v, ok
}

// Put remembers v for key; a full map is emptied first.
func (m *Map[V]) Put(key string, v V) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.values == nil || len(m.values) >= m.bound {
		m.values = make(map[string]V, min(m.bound, 1024))
	}
	m.values[key] = v
}

// Len is how many values the map holds.
func (m *Map[V]) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.values)
}
