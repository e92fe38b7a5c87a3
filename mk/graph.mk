# Graph administration over Bolt. Set MEMGRAPH_URI (and, if needed,
# MEMGRAPH_USER, MEMGRAPH_PASSWORD, GRAPH_DATABASE, GRAPH_DIALECT).
.PHONY: graph-schema graph-seed

graph-schema: ## apply the graph's id constraints/indexes to $MEMGRAPH_URI
	$(GO) run ./cmd/graphctl schema

graph-seed: graph-schema ## load the IE/UK/EU seed dataset into $MEMGRAPH_URI
	$(GO) run ./cmd/graphctl seed
