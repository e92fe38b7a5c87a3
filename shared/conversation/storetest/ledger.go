package storetest

import (
	"errors"
	"math"
	"sync"
	"testing"
	"time"

	"regintel/shared/conversation"
)

func tokens(n int64) conversation.TokenCharge { return conversation.TokenCharge{Tokens: n} }

func tokenLimit(n int64) conversation.DailyLimits { return conversation.DailyLimits{Tokens: n} }

// capTurns is how many turns race against the cap, as many concurrent
// turns of one tenant as the cap is tested with end to end.
const capTurns = 40

// Forty turns race for a 2,000-token day, each charging a worst case of
// 300 tokens and using 250: the day ends at most one charge above the
// cap, and a turn once it is reached charges nothing.
func testConcurrentChargesHoldTheCap(t *testing.T, s Store) {
	const limit, worstCase, used = 2000, 300, 250
	tenant := newTenant()
	var wg sync.WaitGroup
	var mu sync.Mutex
	admitted, refused := 0, 0
	for range capTurns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			charge, err := s.ChargeTokens(userCtx, tenant, tokens(worstCase), tokenLimit(limit))
			if errors.Is(err, conversation.ErrOverLimit) {
				mu.Lock()
				refused++
				mu.Unlock()
				return
			}
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			admitted++
			mu.Unlock()
			settle := conversation.Settlement{Usage: conversation.Usage{TotalTokens: used}}
			if err := s.SettleTokens(userCtx, tenant, charge, settle); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	charged, err := s.TenantChargedToday(userCtx, tenant)
	if err != nil {
		t.Fatal(err)
	}
	if charged != int64(admitted*used) {
		t.Errorf("ledger after settling = %d, want %d admitted turns × %d", charged, admitted, used)
	}
	if charged > limit+worstCase {
		t.Errorf("%d concurrent turns used %d tokens against a cap of %d (at most %d allowed)", capTurns, charged, limit, limit+worstCase)
	}
	if refused == 0 || admitted == 0 {
		t.Errorf("admitted %d, refused %d: the cap should admit some turns and refuse the rest", admitted, refused)
	}
}

// A charge counts at once, before it is settled; settling moves the day
// by the difference; another tenant's day is its own; a turn that stores
// no turn records its usage with the settlement.
func testChargeThenSettle(t *testing.T, s Store) {
	tenant := newTenant()
	charge, err := s.ChargeTokens(userCtx, tenant, tokens(900), tokenLimit(1000))
	if err != nil {
		t.Fatal(err)
	}
	if charge.Day == "" || charge.Tokens != 900 {
		t.Errorf("charge = %+v, want 900 tokens on a day", charge)
	}
	if n, _ := s.TenantChargedToday(userCtx, tenant); n != 900 {
		t.Errorf("ledger while the turn runs = %d, want 900", n)
	}
	second, err := s.ChargeTokens(userCtx, tenant, tokens(900), tokenLimit(1000))
	if err != nil {
		t.Fatalf("a second charge under the limit: %v", err)
	}
	if _, err := s.ChargeTokens(userCtx, tenant, tokens(1), tokenLimit(1000)); !errors.Is(err, conversation.ErrOverLimit) {
		t.Errorf("a charge at 1800 of 1000: %v, want ErrOverLimit", err)
	}
	if n, _ := s.TenantChargedToday(userCtx, newTenant()); n != 0 {
		t.Errorf("another tenant's ledger = %d, want 0", n)
	}
	used := conversation.Usage{InputTokens: 100, OutputTokens: 20, TotalTokens: 120}
	if err := s.SettleTokens(userCtx, tenant, charge, conversation.Settlement{Usage: used, Record: true}); err != nil {
		t.Fatal(err)
	}
	if err := s.SettleTokens(userCtx, tenant, second, conversation.Settlement{}); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.TenantChargedToday(userCtx, tenant); n != 120 {
		t.Errorf("ledger after settling 120 and 0 = %d, want 120", n)
	}
	if n, _ := s.TenantTokensToday(userCtx, tenant); n != 120 {
		t.Errorf("recorded usage = %d, want the 120 of the recorded settlement", n)
	}
}

// A turn keeps the input tokens its provider served from cache and its
// cost, appended or finished in place; a turn without a price keeps none
// (not a zero one); an estimated usage stays marked so.
func testUsageKeepsCachedTokensAndCost(t *testing.T, s Store) {
	tenant := newTenant()
	c := mustCreate(t, s, tenant)
	cost := 0.00123456
	priced := conversation.Usage{InputTokens: 2000, OutputTokens: 100, TotalTokens: 2100, CachedInputTokens: 1024, CostUSD: &cost}
	mustAppend(t, s, tenant, c.ID, conversation.Turn{UserText: "q1", Usage: priced})
	if _, err := s.StartTurn(userCtx, tenant, c.ID, conversation.TurnStart{LeaseFor: time.Minute}); err != nil {
		t.Fatal(err)
	}
	n, err := s.ReserveTurn(userCtx, tenant, c.ID, conversation.Turn{UserText: "q2"})
	if err != nil {
		t.Fatal(err)
	}
	finished := conversation.Turn{Number: n, Status: conversation.TurnOK, AssistantText: "a2", Usage: priced}
	if err := s.FinishTurn(userCtx, tenant, c.ID, finished, conversation.TurnFinish{}); err != nil {
		t.Fatal(err)
	}
	unpriced := conversation.Usage{InputTokens: 10, OutputTokens: 2, TotalTokens: 12, Estimated: true}
	mustAppend(t, s, tenant, c.ID, conversation.Turn{UserText: "q3", Usage: unpriced})
	history := mustLoad(t, s, tenant, c.ID, 10).History
	if len(history) != 3 {
		t.Fatalf("history has %d turns", len(history))
	}
	for _, turn := range history[:2] {
		u := turn.Usage
		if u.CachedInputTokens != 1024 || u.CostUSD == nil || math.Abs(*u.CostUSD-cost) > 1e-9 {
			t.Errorf("turn %d usage %+v (cost %v), want 1024 cached tokens costing $%v", turn.Number, u, u.CostUSD, cost)
		}
	}
	if u := history[2].Usage; u.CostUSD != nil || u.TotalTokens != 12 || !u.Estimated {
		t.Errorf("unpriced estimated turn usage %+v, want 12 estimated tokens and no cost", u)
	}
	if history[0].Usage.Estimated {
		t.Error("a turn with the provider's usage reads back as estimated")
	}
}

// A cost limit holds like the token limit: charges count their cost at
// once, settling replaces it by the usage's cost (none when unpriced), and
// once the day's cost reached the limit a charge is ErrOverCostLimit,
// whatever the tokens.
func testCostLimit(t *testing.T, s Store) {
	tenant := newTenant()
	limits := conversation.DailyLimits{Tokens: 1 << 40, CostUSD: 0.10}
	worst := conversation.TokenCharge{Tokens: 1000, CostUSD: 0.06}
	first, err := s.ChargeTokens(userCtx, tenant, worst, limits)
	if err != nil || first.CostUSD != 0.06 {
		t.Fatalf("first charge: %+v, %v", first, err)
	}
	second, err := s.ChargeTokens(userCtx, tenant, worst, limits)
	if err != nil {
		t.Fatalf("a charge at $0.06 of $0.10: %v", err)
	}
	if _, err := s.ChargeTokens(userCtx, tenant, worst, limits); !errors.Is(err, conversation.ErrOverCostLimit) {
		t.Fatalf("a charge at $0.12 of $0.10: %v, want ErrOverCostLimit", err)
	}
	cost := 0.01
	if err := s.SettleTokens(userCtx, tenant, first, conversation.Settlement{Usage: conversation.Usage{TotalTokens: 50, CostUSD: &cost}}); err != nil {
		t.Fatal(err)
	}
	if err := s.SettleTokens(userCtx, tenant, second, conversation.Settlement{Usage: conversation.Usage{TotalTokens: 50}}); err != nil {
		t.Fatal(err)
	}
	// $0.01 spent: two more worst cases fit before the limit is met.
	for i := range 2 {
		if _, err := s.ChargeTokens(userCtx, tenant, worst, limits); err != nil {
			t.Fatalf("charge %d after settling to $0.01: %v", i+1, err)
		}
	}
	if _, err := s.ChargeTokens(userCtx, tenant, worst, limits); !errors.Is(err, conversation.ErrOverCostLimit) {
		t.Errorf("a charge at $0.13 of $0.10: %v, want ErrOverCostLimit", err)
	}
	if _, err := s.ChargeTokens(userCtx, tenant, worst, conversation.DailyLimits{Tokens: 100, CostUSD: 1}); !errors.Is(err, conversation.ErrOverLimit) {
		t.Errorf("a charge over the token limit: %v, want ErrOverLimit", err)
	}
}

// A charge is held for its turn's lease. A turn that dies unsettled (a
// crash) holds its worst case only until the lease lapses: the tenant's
// next charge settles it to its estimate, and the day is open again. A
// charge still within its lease stays whole, and the dead turn's late
// settlement, should it come, moves the day from the estimate, not again
// from the worst case.
func testLapsedChargeIsSettledToItsEstimate(t *testing.T, s Store) {
	const lease = 100 * time.Millisecond
	tenant := newTenant()
	crashed := conversation.TokenCharge{Tokens: 1000, CostUSD: 0.05, LeaseFor: lease,
		Lapse: &conversation.TokenCharge{Tokens: 150, CostUSD: 0.01}}
	dead, err := s.ChargeTokens(userCtx, tenant, crashed, tokenLimit(1000))
	if err != nil || dead.ID == "" {
		t.Fatalf("charge = %+v, %v: want a reservation", dead, err)
	}
	// Within the lease the worst case holds the day.
	if _, err := s.ChargeTokens(userCtx, tenant, tokens(10), tokenLimit(1000)); !errors.Is(err, conversation.ErrOverLimit) {
		t.Fatalf("a charge while the lease holds: %v, want ErrOverLimit", err)
	}
	time.Sleep(lease + 50*time.Millisecond) // the turn's process is gone; its lease lapses
	// A running turn's charge, with a lease of a minute, is not touched.
	running, err := s.ChargeTokens(userCtx, tenant, conversation.TokenCharge{Tokens: 300, LeaseFor: time.Minute,
		Lapse: &conversation.TokenCharge{Tokens: 1}}, tokenLimit(1000))
	if err != nil {
		t.Fatalf("a charge after the lease lapsed: %v, want the budget restored", err)
	}
	if n, _ := s.TenantChargedToday(userCtx, tenant); n != 150+300 {
		t.Errorf("ledger = %d, want the dead turn's estimate 150 + the running turn's 300", n)
	}
	if _, err := s.ChargeTokens(userCtx, tenant, tokens(10), tokenLimit(1000)); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.TenantChargedToday(userCtx, tenant); n != 150+300+10 {
		t.Errorf("ledger = %d, want 460: a charge within its lease stays whole", n)
	}
	// The dead turn's settlement arrives after all: from 150 to 120.
	if err := s.SettleTokens(userCtx, tenant, dead, conversation.Settlement{Usage: conversation.Usage{TotalTokens: 120}}); err != nil {
		t.Fatal(err)
	}
	if err := s.SettleTokens(userCtx, tenant, running, conversation.Settlement{Usage: conversation.Usage{TotalTokens: 200}}); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.TenantChargedToday(userCtx, tenant); n != 120+200+10 {
		t.Errorf("ledger after the late settlements = %d, want 330", n)
	}
}
