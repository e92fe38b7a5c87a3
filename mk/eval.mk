# Answer quality on the golden set (shared/eval/testdata/golden.json).
.PHONY: eval

eval: ## score answers on the golden set through the chat route: recall@8, as-of accuracy, citation validity, as-of detection (+ numbers and abstention with OPENAI_API_KEY); JSON in .testenv/eval/latest.json
	$(GO) run ./cmd/eval -out .testenv/eval/latest.json
