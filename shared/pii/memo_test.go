package pii

import "testing"

// A short text is found from the memo the second time: the same matches,
// per set of kinds, and a caller's change to them does not reach the next.
func TestShortTextsAreRemembered(t *testing.T) {
	text := "call 087 123 4567 or mail a.b@example.ie"
	first := rememberedFind(text, []Kind{KindPhone, KindEmail})
	if len(first) != 2 {
		t.Fatalf("found %v", first)
	}
	first[0].Kind = KindName
	again := rememberedFind(text, []Kind{KindPhone, KindEmail})
	if len(again) != 2 || again[0].Kind != KindPhone || again[1].Kind != KindEmail {
		t.Fatalf("the second call found %v", again)
	}
	if only := rememberedFind(text, []Kind{KindEmail}); len(only) != 1 || only[0].Kind != KindEmail {
		t.Fatalf("restricted to e-mail: %v", only)
	}
	if _, ok := shortTexts.Get(MemoKey(text, []Kind{KindPhone, KindEmail})); !ok {
		t.Fatal("the text is not in the memo")
	}
}
