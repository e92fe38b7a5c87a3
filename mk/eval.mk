# Answer quality on the source-written answer key (shared/eval/testdata/golden.json = dev, heldout.json).
.PHONY: eval

eval: ## score the answer key (dev and heldout) through the chat route; disagreements with the dataset; coverage per family; fails under the heldout thresholds
	$(GO) run ./cmd/eval -out .testenv/eval/latest.json
