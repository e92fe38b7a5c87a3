package prompt_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tiktoken-go/tokenizer/codec"

	"regintel/shared/chat"
	"regintel/shared/llm"
	"regintel/shared/prompt"
)

func TestEveryModelIsCountedWithCl100k(t *testing.T) {
	for model, margin := range map[string]int{
		"gpt-4o": prompt.O200kMarginPercent, "gpt-4o-mini": prompt.O200kMarginPercent, "gpt-4.1-mini": prompt.O200kMarginPercent,
		"gpt-5": prompt.O200kMarginPercent, "o3-mini": prompt.O200kMarginPercent, "ft:gpt-4o-mini:acme::abc": prompt.O200kMarginPercent,
		"mistral-large": prompt.O200kMarginPercent, "llama-3.1-8b": prompt.O200kMarginPercent,
		"gpt-4": 0, "gpt-4-turbo": 0, "gpt-3.5-turbo-0125": 0, "gpt-35-turbo-16k": 0, "text-embedding-ada-002": 0, "ft:gpt-3.5-turbo:acme::abc": 0,
	} {
		tok := prompt.TokenizerForModel(model)
		if got := tok.Encoding(); got != "cl100k_base" {
			t.Errorf("%s: encoding %s, want cl100k_base", model, got)
		}
		// 100 tokens of cl100k_base ("a" and " a" are one token each).
		text := "a" + strings.Repeat(" a", 99)
		if got, want := tok.Count(text), 100+margin; got != want {
			t.Errorf("%s: %d tokens, want %d (cl100k_base plus %d%%)", model, got, want, margin)
		}
	}
}

func TestTokenizerCountsAndTruncates(t *testing.T) {
	// "hello world" is two tokens; an o200k_base model's count adds the
	// margin, rounded up.
	for model, want := range map[string]int{"gpt-4": 2, "gpt-4.1-mini": 3} {
		tok := prompt.TokenizerForModel(model)
		if n := tok.Count("hello world"); n != want {
			t.Errorf("%s: Count(hello world) = %d, want %d", model, n, want)
		}
		long := strings.Repeat("Vehicle registration tax is charged on registration. ", 100)
		cut, truncated := tok.Truncate(long, 50)
		if n := tok.Count(cut); !truncated || n > 50 || n < 40 || !strings.HasPrefix(cut, "Vehicle registration") || !strings.Contains(cut, "[… truncated:") {
			t.Errorf("%s: Truncate = %q (%d tokens, truncated %v), want 40 to 50 tokens", model, cut, n, truncated)
		}
		if same, truncated := tok.Truncate("short", 50); same != "short" || truncated {
			t.Errorf("%s: short text changed: %q", model, same)
		}
	}
}

// A prompt fitted with the tokenizer of an o200k_base model must not be
// longer in that model's own tokens: on each text the models are sent, the
// count with the margin is at least o200k_base's. The test binary links
// o200k_base for this; the functions do not.
func TestO200kModelsAreNeverUndercounted(t *testing.T) {
	o200k := codec.NewO200kBase()
	tok := prompt.TokenizerForModel("gpt-4o")
	for name, text := range tokenCorpus(t) {
		mine := tok.Count(text)
		theirs, err := o200k.Count(text)
		if err != nil {
			t.Fatal(err)
		}
		plain, _ := codec.NewCl100kBase().Count(text)
		t.Logf("%-32s o200k_base %5d  cl100k_base %5d (×%.3f)  counted %5d", name, theirs, plain, float64(plain)/float64(theirs), mine)
		if mine < theirs {
			t.Errorf("%s: counted %d tokens, o200k_base has %d", name, mine, theirs)
		}
	}
}

// What the budget promises an o200k_base model: the prompt fitted to it,
// tool schemas included, is within the budget in the model's own tokens.
func TestFittedPromptIsWithinTheBudgetInO200kTokens(t *testing.T) {
	o200k := codec.NewO200kBase()
	count := func(s string) int {
		n, err := o200k.Count(s)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	tok := prompt.TokenizerForModel("gpt-4o")
	in := prompt.Input{Data: prompt.Data{AgentID: "a", Jurisdictions: []string{"IE"}, CaptureConcepts: true, RequestContext: true}, Question: "And the one for request_context?"}
	o200kTools := 0
	for _, tool := range []llm.Tool{chat.CaptureConceptsTool(), chat.RequestContextTool()} {
		schema, _ := json.Marshal(tool.Parameters)
		in.ToolTokens += tok.Count(tool.Name+" "+tool.Description) + tok.Count(string(schema))
		o200kTools += count(tool.Name+" "+tool.Description) + count(string(schema))
	}
	// Compact JSON is where cl100k_base counts fewest against o200k_base.
	schema, _ := json.Marshal(chat.CaptureConceptsTool().Parameters)
	for i := 1; i <= 30; i++ {
		in.History = append(in.History, prompt.HistoryTurn{Number: i,
			UserText: fmt.Sprintf("Question %d: which schema does capture_concepts take?", i), AssistantText: string(schema)})
	}
	for _, budget := range []int{900, 1200, 1600} {
		out, err := prompt.Fit(prompt.DefaultSheet(), tok, budget, in)
		if err != nil {
			t.Fatal(err)
		}
		sent := count(out.System) + o200kTools
		for _, m := range out.Messages {
			sent += count(m.Content)
		}
		if sent > budget || len(out.Usage.TurnsIncluded) == 0 || len(out.Usage.TurnsDropped) == 0 {
			t.Errorf("budget %d: %d o200k_base tokens sent (%d turns in, %d dropped)", budget, sent, len(out.Usage.TurnsIncluded), len(out.Usage.TurnsDropped))
		}
	}
}

// tokenCorpus is what the models are sent: the default sheet rendered with
// sample data, regulatory prose in English, Irish, German and French,
// numbers and euro amounts, and the tool schemas.
func tokenCorpus(t *testing.T) map[string]string {
	corpus := map[string]string{
		"english regulatory prose": `Value-Added Tax (VAT) is charged on the supply of goods and services in Ireland by accountable persons. ` +
			`The standard rate is 23%; the reduced rates of 13.5% and 9% apply to specified goods and services, such as fuel, ` +
			`building services and certain hospitality supplies. A person whose turnover exceeds the registration threshold ` +
			`must register with Revenue and file returns for each taxable period, normally every two months, by the 23rd day ` +
			`of the month after the period ends. Vehicle Registration Tax (VRT) is due when a vehicle is registered in the State ` +
			`for the first time; it is calculated on the open market selling price and the vehicle's CO2 emissions, and an ` +
			`imported vehicle must be booked for examination at an NCTS centre within 30 days of its arrival. Under PAYE, ` +
			`an employer deducts income tax, the Universal Social Charge and PRSI from each payment of wages; tax credits ` +
			`and the standard rate cut-off point are apportioned between employments as the employee directs.`,
		"irish": `Is cáin ar thomhaltas í an Cháin Bhreisluacha (CBL) a ghearrtar ar sholáthar earraí agus seirbhísí in Éirinn. ` +
			`Is é 23% an ráta caighdeánach. Ní mór do dhuine a bhfuil a láimhdeachas os cionn na tairsí clárú leis na Coimisinéirí ` +
			`Ioncaim agus tuairisceáin a chomhdú do gach tréimhse inchánach. Íoctar Cáin Chláraithe Feithiclí nuair a chláraítear ` +
			`feithicil sa Stát den chéad uair.`,
		"german": `Die Umsatzsteuer wird auf Lieferungen und sonstige Leistungen erhoben, die ein Unternehmer im Inland gegen Entgelt ` +
			`im Rahmen seines Unternehmens ausführt. Der allgemeine Steuersatz beträgt 19 Prozent, der ermäßigte Steuersatz ` +
			`7 Prozent. Kleinunternehmer, deren Umsatz im vorangegangenen Kalenderjahr 25.000 Euro nicht überstiegen hat, ` +
			`können von der Erhebung der Steuer befreit werden. Die Voranmeldung ist bis zum zehnten Tag nach Ablauf des ` +
			`Voranmeldungszeitraums elektronisch zu übermitteln.`,
		"french": `La taxe sur la valeur ajoutée est due sur les livraisons de biens et les prestations de services effectuées à ` +
			`titre onéreux par un assujetti agissant en tant que tel. Le taux normal est fixé à 20 %, le taux intermédiaire à ` +
			`10 % et le taux réduit à 5,5 %. Les entreprises dont le chiffre d'affaires n'excède pas les seuils de la franchise ` +
			`en base sont dispensées de déclarer et de payer la taxe.`,
		"legislation in capitals": `VALUE-ADDED TAX CONSOLIDATION ACT 2010, SECTION 46(1)(C); TAXES CONSOLIDATION ACT 1997, ` +
			`PART 42, CHAPTER 4 (SECTIONS 983 TO 997A); FINANCE (LOCAL PROPERTY TAX) ACT 2012, SCHEDULE 1.`,
		"numbers and euro amounts": `Gross pay €52,000.00; standard rate cut-off point €44,000 (single), €53,000 (married, one income). ` +
			`USC: 0.5% on €0–€12,012; 2% on €12,012.01–€27,382; 3% on €27,382.01–€70,044; 8% above. PRSI Class A1 4.1% from ` +
			`1 October 2024. VRT on an OMSP of €31,450 at 14%: €4,403. Deadline 31/10/2025, 23:59 IST. ` +
			`Figures: 1, 12, 123, 1234, 12345, 123456, 1234567, 3.14159, -42, 1e6, 0.000125, 99.9%.`,
	}
	for _, tool := range []llm.Tool{chat.CaptureConceptsTool(), chat.RequestContextTool()} {
		schema, err := json.Marshal(tool.Parameters)
		if err != nil {
			t.Fatal(err)
		}
		corpus["tool "+tool.Name+" description"] = tool.Name + " " + tool.Description
		corpus["tool "+tool.Name+" schema"] = string(schema)
	}
	for name, text := range renderedPrompt(t) {
		corpus[name] = text
	}
	return corpus
}

// renderedPrompt is the default sheet fitted with every section in use.
func renderedPrompt(t *testing.T) map[string]string {
	verified := time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC)
	in := prompt.Input{
		Data: prompt.Data{AgentID: "regintel-copilot", Jurisdictions: []string{"IE", "UK"}, PersonaType: "self-employed sole trader",
			Concepts: []prompt.ConceptLine{
				{ID: "TAX:IE:VAT", Label: "Value-Added Tax", Jurisdiction: "IE", Definition: "A tax on the supply of goods and services."},
				{ID: "TAX:IE:VRT", Label: "Vehicle Registration Tax", Jurisdiction: "IE", Definition: "A tax due when a vehicle is first registered in the State."},
			},
			CaptureConcepts: true, RequestContext: true},
		Facts: []prompt.FactGroup{{ConceptID: "TAX:IE:VAT", Concept: "Value-Added Tax", Facts: []prompt.FactLine{
			{NodeID: "TAX:IE:VAT:RATE:STANDARD", Kind: "Rate", Label: "VAT standard rate", Value: "percent: 23; band: standard",
				Sources: []string{"https://www.revenue.ie/en/vat/vat-rates/index.aspx"}, LastVerified: verified},
			{NodeID: "TAX:IE:VAT:THRESHOLD:SERVICES", Kind: "Threshold", Label: "VAT registration threshold for services", Value: "amount: 42500; currency: EUR",
				Sources: []string{"https://www.revenue.ie/en/vat/vat-registration/who-should-register-for-vat/index.aspx"}, LastVerified: verified},
		}}},
		History: []prompt.HistoryTurn{{Number: 1, UserText: "Do I need to register for VAT as a freelance designer?",
			AssistantText: "If your turnover from services exceeds €42,500 in a continuous 12-month period, you must register."}},
		Supplied: []prompt.SuppliedItem{{ID: "i1", Key: "annual_income", Kind: "profile_fact", Content: "Turnover last year: €47,800; expenses €6,100."}},
		Question: "Which VAT rate applies to my design services, and when is my first return due?",
	}
	out, err := prompt.Fit(prompt.DefaultSheet(), prompt.TokenizerForModel("gpt-4o"), 20000, in)
	if err != nil {
		t.Fatal(err)
	}
	texts := map[string]string{"rendered system prompt": out.System}
	for i, m := range out.Messages {
		texts[fmt.Sprintf("rendered message %d", i+1)] = m.Content
	}
	in.History, in.Supplied = nil, nil
	in.ClientHistory = []llm.Message{{Role: llm.RoleUser, Content: "Wie hoch ist die Umsatzsteuer in Irland?"},
		{Role: llm.RoleAssistant, Content: "Der Normalsatz beträgt 23 %."}}
	out, err = prompt.Fit(prompt.DefaultSheet(), prompt.TokenizerForModel("gpt-4o"), 20000, in)
	if err != nil {
		t.Fatal(err)
	}
	texts["rendered client history"] = out.Messages[0].Content
	if len(texts) < 4 {
		t.Fatalf("rendered only %d texts", len(texts))
	}
	return texts
}
