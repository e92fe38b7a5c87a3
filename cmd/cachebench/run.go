package main

import (
	"fmt"
	"os"
)

// run drives both conversations and prints the report.
func run(protocol, model, label string) error {
	if protocol != "responses" && protocol != "chat" {
		return fmt.Errorf("-protocol %q: use responses or chat", protocol)
	}
	b, err := newBench(protocol, model)
	if err != nil {
		return err
	}
	defer b.close()
	var questions []string
	for _, c := range benchConcepts {
		questions = append(questions, c.question)
	}
	first, err := b.conversation(1, questions)
	if err != nil {
		return err
	}
	// The same sheet, the questions in another order.
	rotated := append(append([]string{}, questions[5:]...), questions[:5]...)
	second, err := b.conversation(2, rotated)
	if err != nil {
		return err
	}
	report(os.Stdout, label, protocol, append(first, second...))
	return nil
}
