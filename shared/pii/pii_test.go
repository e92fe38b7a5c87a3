package pii

import (
	"slices"
	"strings"
	"testing"

	"regintel/shared/pii/piicases"
)

func TestFindTruePositives(t *testing.T) {
	cases := []struct {
		name, text, want string
		kind             Kind
	}{
		{"email", "write to mary.o'brien+tax@example.ie today", "mary.o'brien+tax@example.ie", KindEmail},
		{"email plain", "contact john.smith@revenue-test.gov.ie.", "john.smith@revenue-test.gov.ie", KindEmail},
		{"ie mobile", "call 087 123 4567 after six", "087 123 4567", KindPhone},
		{"ie mobile compact", "my number is 0871234567", "0871234567", KindPhone},
		{"ie landline brackets", "ring (01) 234 5678 please", "(01) 234 5678", KindPhone},
		{"ie international", "or +353 87 123 4567.", "+353 87 123 4567", KindPhone},
		{"ie international 00", "dial 00353 1 234 5678", "00353 1 234 5678", KindPhone},
		{"uk landline", "London office 020 7946 0958", "020 7946 0958", KindPhone},
		{"uk mobile", "text 07700 900123", "07700 900123", KindPhone},
		{"uk trunk zero", "+44 (0)20 7946 0958 any time", "+44 (0)20 7946 0958", KindPhone},
		{"us international", "US: +1-202-555-0147", "+1-202-555-0147", KindPhone},
		{"iban ie grouped", "IBAN IE29 AIBK 9311 5212 3456 78 for refunds", "IE29 AIBK 9311 5212 3456 78", KindIBAN},
		{"iban gb compact", "pay GB82WEST12345698765432 now", "GB82WEST12345698765432", KindIBAN},
		{"iban de lower", "de89370400440532013000", "de89370400440532013000", KindIBAN},
		{"visa grouped", "card 4111 1111 1111 1111 exp 12/27", "4111 1111 1111 1111", KindCard},
		{"mastercard hyphens", "5555-5555-5555-4444", "5555-5555-5555-4444", KindCard},
		{"amex", "amex 378282246310005", "378282246310005", KindCard},
		{"ppsn", "my PPSN is 1234567T.", "1234567T", KindPPSN},
		{"ppsn two letters", "PPS 1234567FA", "1234567FA", KindPPSN},
		{"ppsn lower", "pps no 1234567t", "1234567t", KindPPSN},
		{"ppsn spaced", "PPSN 1234567 T please", "1234567 T", KindPPSN},
		{"ie mobile dotted", "ring 087.123.4567 today", "087.123.4567", KindPhone},
		{"nino spaced", "NI number AB 12 34 56 C", "AB 12 34 56 C", KindNINO},
		{"nino compact", "NINO: JG103759A", "JG103759A", KindNINO},
		{"ipv4", "from 192.168.1.10 yesterday", "192.168.1.10", KindIP},
		{"ipv6", "host 2001:db8::8a2e:370:7334 logged", "2001:db8::8a2e:370:7334", KindIP},
		{"ipv6 after label", "addr:2001:db8::1", "2001:db8::1", KindIP},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ms := Find(tc.text)
			if len(ms) != 1 {
				t.Fatalf("Find(%q) = %v, want one %s match", tc.text, ms, tc.kind)
			}
			m := ms[0]
			if m.Kind != tc.kind || tc.text[m.Start:m.End] != tc.want {
				t.Fatalf("Find(%q) = %s %q, want %s %q", tc.text, m.Kind, tc.text[m.Start:m.End], tc.kind, tc.want)
			}
		})
	}
}

// regulatoryTexts are rates, dates, references and ids that look like
// personal data but are not.
var regulatoryTexts = []string{
	"The standard VAT rate is 23% and the reduced rate is 13.5%.",
	"The CGT annual exemption is €1,270; the threshold is €40,000 or €2,000,000.",
	"Finance Act 2024, section 604A, effective 1 January 2025.",
	"S.I. No. 123 of 2013 and Regulation (EU) 2016/679 art. 6(1)(c).",
	"Filing deadline 31/10/2025 or 2025-10-31 at 10:30:00.",
	"rate of 0.09 per unit, €0.0125 per litre, 12.5% corporation tax",
	"reference number 1234567X is not checked",            // wrong PPSN check letter
	"IE29 AIBK 9311 5212 3456 79 is a typo",               // bad IBAN checksum
	"4111 1111 1111 1112 fails Luhn",                      // bad card checksum
	"version 1.2.3 of the form; para 4.1.2.3.5",           // dotted references
	"VAT number IE1234567T (the country prefix is glued)", // VAT registration, not a PPSN
	"QQ123456C is the HMRC sample, never allocated",
	"between 2010 and 2020 there were 12 345 678 claims",
	"sections 2, 3, 4, 5, 6, 7, 8, 9 and 10 apply",
	"a pension of €1234567 a year, rate 0.135.2024",         // a spaced PPSN needs a capital letter
	"reference 1234567 X fails the check letter",            // spaced, wrong check letter
	"amounts 0.123.4567 and 1.087.123.4567 are not phones",  // dotted numbers, not phone-shaped
	"TAX:TC75F918320A1B2C3D:VAT:THRESHOLD",                  // passes mod-97, but TC is not an IBAN country
	"code GB82WEST1234569876543 is a digit short",           // GB IBANs have 22 characters
	"contracts dated 01/07/1999 and ending 31.12.2005",      // dates of law, not of birth
	"the 9% rate is valid from 2003-01-01 until 2011-06-30", // as the offline answer cites a fact
	"the rate [TAX:IE:VAT:RATE:REDUCED:2003-01-01] applies", // a node id ends with the date it took effect
}

func TestFindIgnoresRegulatoryText(t *testing.T) {
	for _, text := range regulatoryTexts {
		if ms := Find(text); len(ms) != 0 {
			var got []string
			for _, m := range ms {
				got = append(got, string(m.Kind)+"="+text[m.Start:m.End])
			}
			t.Errorf("Find(%q) flagged %v, want nothing", text, got)
		}
	}
}

func TestRedact(t *testing.T) {
	in := "Email me at a.b@example.com or call 087 123 4567; PPSN 1234567T, again a.b@example.com."
	out, kinds := Redact(in)
	want := "Email me at [REDACTED:EMAIL] or call [REDACTED:PHONE]; PPSN [REDACTED:PPSN], again [REDACTED:EMAIL]."
	if out != want {
		t.Fatalf("Redact = %q\nwant     %q", out, want)
	}
	if !slices.Equal(kinds, []Kind{KindEmail, KindPhone, KindPPSN}) {
		t.Fatalf("kinds = %v", kinds)
	}
	clean := "VAT at 23% on €40,000 in 2024"
	if out, kinds := Redact(clean); out != clean || kinds != nil {
		t.Fatalf("Redact(clean) = %q, %v", out, kinds)
	}
}

func TestEmailWinsOverDigitsInside(t *testing.T) {
	text := "0871234567@example.ie"
	ms := Find(text)
	if len(ms) != 1 || ms[0].Kind != KindEmail {
		t.Fatalf("Find(%q) = %v, want a single e-mail", text, ms)
	}
}

func TestFindKindsRestricts(t *testing.T) {
	text := "server 10.0.0.1, mail x@y.ie"
	ms := FindKinds(text, KindEmail)
	if len(ms) != 1 || ms[0].Kind != KindEmail {
		t.Fatalf("FindKinds(email) = %v", ms)
	}
	if k, ok := Contains(text, KindIP); !ok || k != KindIP {
		t.Fatalf("Contains(IP) = %v %v", k, ok)
	}
	if _, ok := Contains("VAT 23%"); ok {
		t.Fatal("Contains flagged a VAT rate")
	}
}

func TestChecksums(t *testing.T) {
	if !luhnValid("79927398713") || luhnValid("79927398710") {
		t.Fatal("luhn")
	}
	if !ibanValid("GB82WEST12345698765432") || ibanValid("GB82WEST12345698765433") {
		t.Fatal("iban")
	}
	if got := ppsnCheckLetter("1234567", 0); got != 'T' {
		t.Fatalf("ppsn check = %c, want T", got)
	}
	if got := ppsnCheckLetter("1234567", 'A'); got != 'F' {
		t.Fatalf("ppsn check with A = %c, want F", got)
	}
}

func TestSensitiveKeys(t *testing.T) {
	for _, k := range []string{"user_id", "userId", "Tenant-ID", "conversation_id", "email", "contact_email",
		"phone", "home_address", "ppsn", "NINO", "iban", "date_of_birth", "dob", "ip_address"} {
		if !IsSensitiveKey(k) {
			t.Errorf("IsSensitiveKey(%q) = false", k)
		}
	}
	for _, k := range []string{"pref_label", "alt_labels", "definition", "source_urls", "rate", "automobile",
		"relationship", "jurisdiction", "updated_at", "threshold_amount"} {
		if IsSensitiveKey(k) {
			t.Errorf("IsSensitiveKey(%q) = true", k)
		}
	}
}

// FuzzRedactNeverLeaksMatches: spans are well formed and ordered, and
// what Redact leaves holds nothing Find would flag. The seeds are the
// shared probe table and the regulatory texts that must pass.
func FuzzRedactNeverLeaksMatches(f *testing.F) {
	f.Add("call 087 123 4567 or a@b.ie, IBAN IE29AIBK93115212345678")
	f.Add("VAT 23% €40,000 2024")
	for _, tc := range piicases.All() {
		f.Add("my details: " + tc.Text)
	}
	for _, text := range piicases.Legitimate {
		f.Add(text)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ms := Find(s)
		for i, m := range ms {
			if m.Start < 0 || m.End > len(s) || m.Start >= m.End {
				t.Fatalf("bad span %v in %q", m, s)
			}
			if i > 0 && ms[i-1].End > m.Start {
				t.Fatalf("overlapping spans %v %v", ms[i-1], m)
			}
		}
		out, _ := Redact(s)
		if len(ms) > 0 && !strings.Contains(out, "[REDACTED:") {
			t.Fatalf("Redact kept all of %q", s)
		}
		if again := Find(out); len(again) > 0 {
			t.Fatalf("Redact(%q) = %q still holds %s %q", s, out, again[0].Kind, out[again[0].Start:again[0].End])
		}
	})
}
