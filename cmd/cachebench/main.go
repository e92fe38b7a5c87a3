// Command cachebench measures how much of each model request the provider
// could serve from its prompt cache: it drives a conversation of ten turns
// whose questions each name a different concept (so the grounded facts
// change every turn), then a second conversation on the same sheet, through
// the chat API and the fake model, which reports cached tokens by OpenAI's
// documented rule. It prints each turn's input tokens, cached tokens and
// cost at list prices.
//
//	cachebench -protocol responses -label after
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	protocol := flag.String("protocol", "responses", "responses or chat")
	model := flag.String("model", "gpt-4.1-mini", "model named in the requests")
	label := flag.String("label", "this tree", "name printed with the figures")
	flag.Parse()
	if err := run(*protocol, *model, *label); err != nil {
		fmt.Fprintln(os.Stderr, "cachebench:", err)
		os.Exit(1)
	}
}
