package main

import (
	"fmt"
	"io"
	"strings"
)

// price is a model's list price in US dollars per million tokens.
type price struct {
	model                      string
	input, cachedInput, output float64
}

// listPrices are OpenAI's standard-tier list prices of the models the
// service runs on. The cost accounting keeps its own table; this copy
// prices the bench only.
var listPrices = []price{
	{"gpt-4.1-mini", 0.40, 0.10, 1.60},
	{"gpt-4.1", 2.00, 0.50, 8.00},
}

func (p price) cost(s turnStat) float64 {
	fresh := s.input - s.cached
	return (float64(fresh)*p.input + float64(s.cached)*p.cachedInput + float64(s.output)*p.output) / 1e6
}

// report prints each turn, then the cacheable share of turns 2 to the last
// of each conversation.
func report(w io.Writer, label, protocol string, stats []turnStat) {
	fmt.Fprintf(w, "\n%s, %s protocol (tokens in o200k_base, gpt-4.1's vocabulary)\n", label, protocol)
	header := "conv turn  calls  input  cached  cacheable  facts as data"
	for _, p := range listPrices {
		header += fmt.Sprintf("  %16s", "costUsd "+p.model)
	}
	fmt.Fprintln(w, header)
	for _, s := range stats {
		line := fmt.Sprintf("%4d %4d  %5d  %5d  %6d  %8.1f%%  %13d", s.conversation, s.turn, s.calls, s.input, s.cached, percent(s.cached, s.input), s.factsInPrompt)
		for _, p := range listPrices {
			line += fmt.Sprintf("  %16.6f", p.cost(s))
		}
		fmt.Fprintln(w, line)
	}
	for _, conv := range []int{1, 2} {
		input, cached, turns := 0, 0, 0
		costs := make([]float64, len(listPrices))
		for _, s := range stats {
			if s.conversation != conv || s.turn < 2 {
				continue
			}
			input, cached, turns = input+s.input, cached+s.cached, turns+1
			for i, p := range listPrices {
				costs[i] += p.cost(s)
			}
		}
		var perTurn []string
		for i, p := range listPrices {
			perTurn = append(perTurn, fmt.Sprintf("$%.6f at %s", costs[i]/float64(max(turns, 1)), p.model))
		}
		fmt.Fprintf(w, "conversation %d, turns 2-%d: %.1f%% of %d input tokens cacheable; %d input tokens a turn; %s a turn\n",
			conv, turns+1, percent(cached, input), input, input/max(turns, 1), strings.Join(perTurn, ", "))
	}
}

func percent(part, whole int) float64 {
	if whole == 0 {
		return 0
	}
	return 100 * float64(part) / float64(whole)
}
