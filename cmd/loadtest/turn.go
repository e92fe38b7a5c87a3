package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// questions are asked in turn, so grounding and concept capture see a mix.
var questions = []string{
	"What VAT rate applies to restaurant meals in Ireland?",
	"How is VRT calculated when I import a car into Ireland?",
	"What is the UK personal allowance for income tax?",
	"When is the deadline for filing a self assessment return?",
	"Who qualifies for the State Pension (Contributory)?",
}

// sample is one request's outcome.
type sample struct {
	err       error
	ttfb      time.Duration // first byte of the body
	firstText time.Duration // first answer text (chat only)
	followup  bool
}

// session is one client: it starts a conversation, then asks follow-ups in it.
type session struct {
	conversationID string
	asked          int
	next           int
}

// drive runs workers sessions until d has passed; requests in flight then
// finish. It returns every sample and the time they took.
func drive(workers int, d time.Duration, do func(context.Context, *session) sample) phase {
	var mu sync.Mutex
	var all []sample
	start := time.Now()
	deadline := start.Add(d)
	var wg sync.WaitGroup
	for i := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := &session{next: i}
			var mine []sample
			for time.Now().Before(deadline) {
				mine = append(mine, do(context.Background(), s))
			}
			mu.Lock()
			all = append(all, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	return phase{samples: all, elapsed: time.Since(start)}
}

// turn sends one chat turn: a new conversation, or a follow-up in the
// session's conversation while it has follow-ups left. The SSE stream is
// read to its done event.
func (s *session) turn(ctx context.Context, client *http.Client, base string, followups int) sample {
	body := map[string]any{"message": questions[s.next%len(questions)]}
	s.next++
	followup := s.conversationID != "" && s.asked < followups
	if followup {
		body["conversationId"] = s.conversationID
		s.asked++
	} else {
		s.conversationID, s.asked = "", 0
	}
	payload, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/chat", bytes.NewReader(payload))
	if err != nil {
		return sample{err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return sample{err: err, followup: followup}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, resp.Body)
		return sample{err: fmt.Errorf("chat: status %d", resp.StatusCode), followup: followup}
	}
	if !followup {
		s.conversationID = resp.Header.Get("X-Conversation-Id")
	}
	out := readStream(resp.Body, start)
	out.followup = followup
	return out
}

// readStream reads SSE frames until done; a done other than ok, or a
// stream that ends without done, is an error. Lines are read in place
// (ReadSlice), so the generator spends little of the CPU it shares with
// the server.
func readStream(body io.Reader, start time.Time) sample {
	r := bufio.NewReaderSize(body, 64<<10)
	var out sample
	for {
		line, err := r.ReadSlice('\n')
		if out.ttfb == 0 && len(line) > 0 {
			out.ttfb = time.Since(start)
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			// A data line longer than the buffer: only its start matters.
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = r.ReadSlice('\n')
			}
			if err != nil {
				out.err = err
				return out
			}
			continue
		case errors.Is(err, io.EOF):
			out.err = errors.New("stream ended without done")
			return out
		case err != nil:
			out.err = err
			return out
		}
		line = bytes.TrimRight(line, "\n")
		switch {
		case bytes.HasPrefix(line, []byte("event: ")):
			switch string(line[len("event: "):]) {
			case "message":
				if out.firstText == 0 {
					out.firstText = time.Since(start)
				}
			case "done":
				out.err = readDone(r)
				return out
			}
		}
	}
}

// readDone reads the done event's data line; a status other than ok is an
// error.
func readDone(r *bufio.Reader) error {
	line, err := r.ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	data := strings.TrimPrefix(strings.TrimRight(line, "\n"), "data: ")
	var done struct{ Status string }
	if json.Unmarshal([]byte(data), &done) != nil || done.Status != "ok" {
		return fmt.Errorf("done: %s", data)
	}
	_, _ = io.Copy(io.Discard, r)
	return nil
}
