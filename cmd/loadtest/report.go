package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"time"
)

// phase is what one phase of the run measured.
type phase struct {
	samples []sample
	elapsed time.Duration
	cpu     map[string]time.Duration // CPU per successful request, by process
}

func (p phase) ok() []sample {
	var out []sample
	for _, s := range p.samples {
		if s.err == nil {
			out = append(out, s)
		}
	}
	return out
}

func (p phase) rate() float64 { return float64(len(p.ok())) / p.elapsed.Seconds() }

func (p phase) errors() (n int, first error) {
	for _, s := range p.samples {
		if s.err != nil {
			if n == 0 {
				first = s.err
			}
			n++
		}
	}
	return n, first
}

// percentile is the p-th percentile (0..100) of durations, nearest rank.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	ds = slices.Clone(ds)
	slices.Sort(ds)
	i := int(p/100*float64(len(ds))+0.5) - 1
	return ds[min(max(i, 0), len(ds)-1)]
}

func durations(samples []sample, pick func(sample) time.Duration) []time.Duration {
	out := make([]time.Duration, 0, len(samples))
	for _, s := range samples {
		out = append(out, pick(s))
	}
	return out
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }

func report(w io.Writer, o options, health, chat phase) {
	label := o.label
	if label != "" {
		label = " [" + label + "]"
	}
	fmt.Fprintf(w, "loadtest%s: c=%d, %s per phase, %d follow-up(s) per conversation\n", label, o.workers, o.duration, o.followups)
	herr, hfirst := health.errors()
	fmt.Fprintf(w, "  healthz floor   %9.0f req/s   (%d ok, %d errors)\n", health.rate(), len(health.ok()), herr)
	ok := chat.ok()
	cerr, cfirst := chat.errors()
	followups := 0
	for _, s := range ok {
		if s.followup {
			followups++
		}
	}
	ratio := 0.0
	if hr := health.rate(); hr > 0 {
		ratio = 100 * chat.rate() / hr
	}
	fmt.Fprintf(w, "  chat turns      %9.0f turns/s (%d ok: %d new, %d follow-up; %d errors)\n", chat.rate(), len(ok), len(ok)-followups, followups, cerr)
	fmt.Fprintf(w, "  turns/healthz   %9.1f %%\n", ratio)
	ttfb := durations(ok, func(s sample) time.Duration { return s.ttfb })
	text := durations(ok, func(s sample) time.Duration { return s.firstText })
	fmt.Fprintf(w, "  first byte      p50 %s  p99 %s\n", ms(percentile(ttfb, 50)), ms(percentile(ttfb, 99)))
	fmt.Fprintf(w, "  first text      p50 %s  p99 %s\n", ms(percentile(text, 50)), ms(percentile(text, 99)))
	reportCPU(w, health.cpu, chat.cpu)
	if hfirst != nil {
		fmt.Fprintf(w, "  first healthz error: %v\n", hfirst)
	}
	if cfirst != nil {
		fmt.Fprintf(w, "  first chat error: %v\n", cfirst)
	}
}

// reportCPU prints the CPU each watched process spent per request in each
// phase: where a turn's cost goes, on a machine where all of them share
// the same cores.
func reportCPU(w io.Writer, health, chat map[string]time.Duration) {
	if len(chat) == 0 {
		return
	}
	names := slices.Sorted(maps.Keys(chat))
	line := func(label string, cpu map[string]time.Duration) {
		fmt.Fprintf(w, "  CPU per %-8s", label)
		for _, n := range names {
			if d, ok := cpu[n]; ok {
				fmt.Fprintf(w, "  %s %d µs", n, d.Microseconds())
			}
		}
		fmt.Fprintln(w)
	}
	line("healthz", health)
	line("turn", chat)
	if h, c := health["server"], chat["server"]; h > 0 && c > 0 {
		fmt.Fprintf(w, "  server CPU      a turn costs %.0f healthz requests\n", float64(c)/float64(h))
	}
}
