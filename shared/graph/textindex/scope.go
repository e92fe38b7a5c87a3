package textindex

// scopeWords maps the everyday words for what a scoped rate applies to
// onto the words official pages use for that category, so "a hotel stay"
// reaches the rate Revenue lists for hotel lettings and accommodation and
// "a haircut" the one for hairdressing services. The categories are those
// of Revenue's VAT rate pages (catering and restaurant supplies, hot
// take-away food, hotel lettings, hairdressing services, the supply of
// electricity and gas) and of its carbon tax pages (auto fuels; heating
// fuels such as kerosene, coal and peat).
var scopeWords = stemmedScopes(map[string][]string{
	"hotel":       {"accommodation", "hotel", "letting"},
	"guesthouse":  {"accommodation"},
	"hostel":      {"accommodation"},
	"lodging":     {"accommodation"},
	"meal":        {"restaurant", "catering", "food"},
	"dinner":      {"restaurant", "catering", "food"},
	"lunch":       {"restaurant", "catering", "food"},
	"cafe":        {"restaurant", "catering"},
	"takeaway":    {"catering", "food"},
	"haircut":     {"hairdressing"},
	"hairdresser": {"hairdressing"},
	"barber":      {"hairdressing"},
	"kerosene":    {"heating", "oil"},
	"diesel":      {"auto", "fuel"},
	"petrol":      {"auto", "fuel"},
})

func stemmedScopes(raw map[string][]string) map[string][]string {
	out := make(map[string][]string, len(raw))
	for k, vs := range raw {
		for _, v := range vs {
			out[Stem(k)] = append(out[Stem(k)], Stem(v))
		}
	}
	return out
}

// Expand adds to question stems the official words of the scopes they
// name, after the stems themselves.
func Expand(stems []string) []string {
	out := append([]string(nil), stems...)
	seen := map[string]bool{}
	for _, s := range stems {
		seen[s] = true
	}
	for _, s := range stems {
		for _, w := range scopeWords[s] {
			if !seen[w] {
				seen[w] = true
				out = append(out, w)
			}
		}
	}
	return out
}
