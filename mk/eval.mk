# Answer quality on the golden set (shared/eval/testdata/golden.json).
.PHONY: eval

eval: ## score the golden set through the chat route (recall@8, as-of accuracy, citation validity, as-of detection; numbers and abstention with OPENAI_API_KEY)
	$(GO) run ./cmd/eval -out .testenv/eval/latest.json
