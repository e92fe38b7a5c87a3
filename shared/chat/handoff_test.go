package chat

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"regintel/shared/conversation"
)

func TestParseRequestContext(t *testing.T) {
	items, err := parseRequestContext(json.RawMessage(`{"items":[
		{"key":"annual income","description":"Gross income","kind":"profile_fact","required":true},
		{"key":"letter","description":"Revenue letter","kind":"video","required":false},
		{"key":"annual_income","description":"duplicate","kind":"text"},
		{"key":"!!","description":"unusable key","kind":"text"},
		{"key":"residency","description":"Where you live"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []conversation.RequestedItem{
		{Key: "annual_income", Description: "Gross income", Kind: "profile_fact", Required: true},
		{Key: "letter", Description: "Revenue letter", Kind: "text", Required: false},
		{Key: "residency", Description: "Where you live", Kind: "text", Required: true},
	}
	if len(items) != len(want) {
		t.Fatalf("items = %+v", items)
	}
	for i := range want {
		if items[i] != want[i] {
			t.Errorf("item %d = %+v, want %+v", i, items[i], want[i])
		}
	}
	for _, bad := range []string{`{"items":[]}`, `{"items":[{"key":"??"}]}`, `{"items":`} {
		if _, err := parseRequestContext(json.RawMessage(bad)); err == nil {
			t.Errorf("%s parsed", bad)
		}
	}
}

func TestSupplyValidationSanitises(t *testing.T) {
	s := Supply{Items: []SuppliedInput{{Key: " my note ", Content: "line one\r\nline\x00 two\x1b[31m\n"}}}
	if err := s.validate(); err != nil {
		t.Fatal(err)
	}
	if s.Items[0].Key != "my_note" || s.Items[0].Content != "line one\nline two[31m" {
		t.Fatalf("sanitised = %q %q", s.Items[0].Key, s.Items[0].Content)
	}
	tooLong := Supply{Items: []SuppliedInput{{Key: "k", Content: strings.Repeat("x", MaxSuppliedChars+1)}}}
	if err := tooLong.validate(); !errors.Is(err, ErrInvalid) {
		t.Fatalf("over-long content: %v", err)
	}
}

// TestParseRequestContextIsStrict: the request_context arguments are read
// with exact field names and no duplicate keys.
func TestParseRequestContextIsStrict(t *testing.T) {
	for _, bad := range []string{
		`{"Items":[{"key":"p60","description":"Your P60"}]}`,
		`{"items":[{"key":"p60","Key":"ppsn","description":"Your P60"}]}`,
		`{"items":[{"key":"p60","description":"Your P60","required":true,"required":false}]}`,
		`{"items":[{"key":"p60","description":"Your\u0000 P60"}]}`,
	} {
		if items, err := parseRequestContext(json.RawMessage(bad)); err == nil {
			t.Errorf("%s parsed: %+v", bad, items)
		}
	}
}

// FuzzRequestContextArgs: request_context arguments never panic the
// parser; what it returns has usable, distinct keys, known kinds, bounded
// descriptions and at most MaxRequestedItems items.
func FuzzRequestContextArgs(f *testing.F) {
	f.Add([]byte(`{"items":[{"key":"annual income","description":"Gross income","kind":"profile_fact","required":true}]}`))
	f.Add([]byte(`{"items":[{"key":"p60","key":"ppsn"}],"Items":[]}`))
	f.Fuzz(func(t *testing.T, args []byte) {
		items, err := parseRequestContext(json.RawMessage(args))
		if err != nil {
			return
		}
		if len(items) == 0 || len(items) > MaxRequestedItems {
			t.Fatalf("%d items from %q", len(items), args)
		}
		seen := map[string]bool{}
		for _, it := range items {
			if normalizeKey(it.Key) != it.Key || seen[it.Key] || !conversation.ValidKind(it.Kind) ||
				len([]rune(it.Description)) > MaxDescriptionChars || strings.ContainsRune(it.Description, 0) {
				t.Fatalf("item %+v from %q", it, args)
			}
			seen[it.Key] = true
		}
	})
}

// TestSupplyKeyGivenTwiceKeepsTheLast: items under one key (after white
// space becomes _) are one item, the last given, in the place of the first.
func TestSupplyKeyGivenTwiceKeepsTheLast(t *testing.T) {
	s := Supply{Items: []SuppliedInput{
		{Key: "my note", Content: "first"},
		{Key: "p60", Content: "P60 2024"},
		{Key: "my_note", Kind: "text", Content: "second"},
		{Key: "p60", Content: "P60 2025"},
	}}
	if err := s.validate(); err != nil {
		t.Fatal(err)
	}
	want := []SuppliedInput{{Key: "my_note", Kind: "text", Content: "second"}, {Key: "p60", Content: "P60 2025"}}
	if len(s.Items) != len(want) || s.Items[0] != want[0] || s.Items[1] != want[1] {
		t.Fatalf("items = %+v, want %+v", s.Items, want)
	}
}
