package pii

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"regintel/shared/memo"
)

// Short texts come back again and again (a concept's label, kind and
// definition on every turn that names it), so Contains remembers what it
// found in them. Detection is a function of the text, the kinds asked
// for and the year (see adultYear), which make the key.
const memoMaxEntries = 8192

var shortTexts = memo.New[[]Match](memoMaxEntries)

// MemoKey is the key under which to remember a detection of kinds in
// text: what detection is a function of.
func MemoKey(text string, kinds []Kind) string {
	var b strings.Builder
	b.Grow(len(text) + 6 + 4*len(kinds))
	b.WriteString(strconv.Itoa(time.Now().Year()))
	for _, k := range kinds {
		b.WriteByte(',')
		b.WriteString(string(k))
	}
	b.WriteByte(0)
	b.WriteString(text)
	return b.String()
}

// rememberedFind is findKinds through the memo; callers get their own
// copy of the matches.
func rememberedFind(text string, kinds []Kind) []Match {
	key := MemoKey(text, kinds)
	if ms, ok := shortTexts.Get(key); ok {
		return slices.Clone(ms)
	}
	ms := findKinds(text, kinds)
	shortTexts.Put(key, slices.Clone(ms))
	return ms
}
