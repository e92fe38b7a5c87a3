package prompt_test

import (
	"testing"

	"regintel/shared/prompt"
)

func TestTokenizerForModelPicksTheModelsVocabulary(t *testing.T) {
	for model, want := range map[string]string{
		"gpt-4o": "o200k_base", "gpt-4o-mini": "o200k_base", "gpt-4.1-mini": "o200k_base", "gpt-5": "o200k_base",
		"o3-mini": "o200k_base", "ft:gpt-4o-mini:acme::abc": "o200k_base", "mistral-large": "o200k_base",
		"gpt-4": "cl100k_base", "gpt-4-turbo": "cl100k_base", "gpt-3.5-turbo-0125": "cl100k_base",
		"gpt-35-turbo-16k": "cl100k_base", "text-embedding-ada-002": "cl100k_base", "ft:gpt-3.5-turbo:acme::abc": "cl100k_base",
	} {
		if got := prompt.TokenizerForModel(model).Encoding(); got != want {
			t.Errorf("%s: %s, want %s", model, got, want)
		}
	}
	// Both linked vocabularies load on first use and count.
	text := "Value-Added Tax on restaurant meals in Ireland: 13.5% (reduced rate), 9% for some services."
	o200k, cl100k := prompt.TokenizerForModel("gpt-4o").Count(text), prompt.TokenizerForModel("gpt-4").Count(text)
	if o200k == 0 || cl100k == 0 {
		t.Fatalf("counts %d and %d", o200k, cl100k)
	}
}
