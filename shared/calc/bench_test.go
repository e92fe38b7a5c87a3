package calc_test

import (
	"context"
	"encoding/json"
	"syscall"
	"testing"

	"regintel/shared/calc"
)

// benchCases are one request per Irish calculator; ie_prsi and ie_net_pay
// compute 52 weekly pay dates.
var benchCases = []calc.Request{
	{Calculator: "ie_income_tax", TaxYear: "2024", Inputs: json.RawMessage(`{"status":"married_two_incomes","income":"60000","spouseIncome":"30000","age":66}`)},
	{Calculator: "ie_usc", TaxYear: "2024", Inputs: json.RawMessage(`{"income":"80000"}`)},
	{Calculator: "ie_prsi", TaxYear: "2024", Inputs: json.RawMessage(`{"earnings":"52000"}`)},
	{Calculator: "ie_net_pay", TaxYear: "2024", Inputs: json.RawMessage(`{"status":"single","income":"52000"}`)},
	{Calculator: "ie_cat", AsOf: "2025-01-01", Inputs: json.RawMessage(`{"group":"A","value":"500000","priorInGroup":"100000"}`)},
}

// BenchmarkCompute is one calculation beyond the graph read: the facts are
// read once, outside the loop, and each iteration decodes the inputs and
// computes the trace.
func BenchmarkCompute(b *testing.B) {
	g := seededGraph(b)
	for _, req := range benchCases {
		c, _ := calc.Lookup(req.Calculator)
		date, err := calc.ResolveDate(req, c.Jurisdiction(), testToday)
		if err != nil {
			b.Fatal(err)
		}
		nodes, err := g.FactSeries(context.Background(), c.Series(date))
		if err != nil {
			b.Fatal(err)
		}
		p := calc.NewParams(date, nodes)
		b.Run(req.Calculator, func(b *testing.B) {
			start := cpuNanos()
			for b.Loop() {
				if _, err := c.Compute(p, req.Inputs); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, start)
		})
	}
}

// BenchmarkDecodeInputs is the baseline: decoding the same inputs into a
// generic map, the least any calculation does.
func BenchmarkDecodeInputs(b *testing.B) {
	for _, req := range benchCases {
		b.Run(req.Calculator, func(b *testing.B) {
			start := cpuNanos()
			for b.Loop() {
				var m map[string]any
				if err := json.Unmarshal(req.Inputs, &m); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, start)
		})
	}
}

// cpuNanos is the process's user+system CPU time: on a shared machine
// wall time per op mostly measures waiting for a core.
func cpuNanos() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

func reportCPU(b *testing.B, start int64) {
	if b.N > 0 {
		b.ReportMetric(float64(cpuNanos()-start)/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkRunInMemory is the whole Run with the in-memory graph's read:
// the baseline the compute cost is read against.
func BenchmarkRunInMemory(b *testing.B) {
	g := seededGraph(b)
	for _, req := range benchCases {
		b.Run(req.Calculator, func(b *testing.B) {
			start := cpuNanos()
			for b.Loop() {
				if _, err := calc.Run(context.Background(), g, req, testToday); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, start)
		})
	}
}
