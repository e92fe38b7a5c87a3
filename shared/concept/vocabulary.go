package concept

import (
	"regexp"
	"slices"
	"strings"
)

// The vocabulary a captured concept is checked against before it may reach
// the shared graph. Domains and kinds are compared in canonical id form
// (IDPart: upper case, words joined by "_"). Extend these lists here, in
// code review, when the assistant covers more.

// Domains are the regulatory domains a concept may belong to. GENERIC is
// what a capture without a domain becomes; WELFARE, VEHICLES and MOTOR are
// spellings models use for SOCIAL_WELFARE and VEHICLE_REG.
var Domains = []string{
	"TAX", "SOCIAL_WELFARE", "WELFARE", "PENSIONS", "VEHICLE_REG", "VEHICLES", "MOTOR", "EMPLOYMENT",
	"PROPERTY", "CUSTOMS", "COMPANY", "HOUSING", "HEALTH", "EDUCATION", "GENERIC",
}

// Kinds are the concept kinds the assistant knows: every kind in the
// curated dataset and the offline lexicon, and the common schemes of the
// jurisdictions covered. A captured kind outside this list but of the
// right shape (WellShapedKind) makes no shared node: it stays in the
// capturing conversation until enrichment finds it named on an official
// page, whose wording then gives the node its id.
var Kinds = []string{
	// Tax
	"VAT", "VAT_DIRECTIVE", "VRT", "USC", "PRSI", "PAYE", "CGT", "CAT", "DIRT", "RCT", "BIK", "LPT",
	"INCOME_TAX", "SCOTTISH_INCOME_TAX", "CORPORATION_TAX", "CAPITAL_GAINS_TAX", "CAPITAL_ACQUISITIONS_TAX", "STAMP_DUTY",
	"LOCAL_PROPERTY_TAX", "CARBON_TAX", "EXCISE_DUTY", "CUSTOMS_DUTY", "MOTOR_TAX", "INHERITANCE_TAX",
	"COUNCIL_TAX", "NATIONAL_INSURANCE", "TAX_CREDIT", "RENT_TAX_CREDIT", "HELP_TO_BUY", "FILM_RELIEF",
	"RD_TAX_CREDIT", "KNOWLEDGE_DEVELOPMENT_BOX", "BENEFIT_IN_KIND", "WITHHOLDING_TAX", "DIGITAL_SERVICES_TAX",
	// Social welfare
	"JOBSEEKERS_BENEFIT", "JOBSEEKERS_ALLOWANCE", "CHILD_BENEFIT", "CARERS_ALLOWANCE", "CARERS_BENEFIT",
	"CARER_SUPPORT_GRANT", "DISABILITY_ALLOWANCE", "ILLNESS_BENEFIT", "MATERNITY_BENEFIT", "PATERNITY_BENEFIT",
	"WORKING_FAMILY_PAYMENT", "ONE_PARENT_FAMILY_PAYMENT", "FUEL_ALLOWANCE", "HOUSING_ASSISTANCE_PAYMENT",
	"UNIVERSAL_CREDIT", "COORDINATION",
	// Pensions
	"STATE_PENSION", "STATE_PENSION_CONTRIBUTORY", "STATE_PENSION_NON_CONTRIBUTORY", "AUTO_ENROLMENT",
	"PRSA", "OCCUPATIONAL_PENSION",
	// Employment and companies
	"MINIMUM_WAGE", "NATIONAL_MINIMUM_WAGE", "NATIONAL_LIVING_WAGE", "REDUNDANCY", "ANNUAL_LEAVE", "EMPLOYMENT_PERMIT", "COMPANY_REGISTRATION", "GENERIC",
}

// wellShapedKind: one to six words joined by "_", each capital letters
// with at most three digits after them, or a number of at most three
// digits ("CLASS_A1", "FORM_11"); with at most three digits in all
// (maxKindDigits), nothing numeric (an id number, a phone number) can
// pass as a kind.
var wellShapedKind = regexp.MustCompile(`^(?:[A-Z]+[0-9]{0,3}|[0-9]{1,3})(?:_(?:[A-Z]+[0-9]{0,3}|[0-9]{1,3})){0,5}$`)

const maxKindDigits = 3

// MaxKindLen bounds a kind in canonical form.
const MaxKindLen = 48

// KnownDomain reports whether domain (in any spelling IDPart accepts) is
// one of Domains.
func KnownDomain(domain string) bool { return slices.Contains(Domains, IDPart(domain, "GENERIC")) }

// KnownKind reports whether kind is one of Kinds.
func KnownKind(kind string) bool { return slices.Contains(Kinds, IDPart(kind, "GENERIC")) }

// WellShapedKind reports whether kind, in canonical form, has the shape of
// a kind (wellShapedKind), at most MaxKindLen characters.
func WellShapedKind(kind string) bool {
	k := IDPart(kind, "GENERIC")
	digits := 0
	for _, r := range k {
		if r >= '0' && r <= '9' {
			digits++
		}
	}
	return len(k) <= MaxKindLen && digits <= maxKindDigits && wellShapedKind.MatchString(k)
}

// TermWords are words that make a run of capitalised words a regulatory
// term rather than a person's name: "Capital Gains Tax" holds Tax, "Cáin
// Bhreisluacha" holds Cáin; "Mary Murphy" holds none. Compared in lower
// case, with a final "'s" or "s'" removed.
var TermWords = termWordSet(`
	tax taxes taxation duty duties levy charge charges credit credits relief reliefs allowance allowances
	benefit benefits payment payments pension pensions grant grants scheme schemes rate rates band bands
	threshold thresholds exemption exemptions contribution contributions insurance fund funds
	act acts section sections directive directives regulation regulations order orders instrument rules rule
	code schedule part article chapter statutory finance consolidation budget return returns form forms
	revenue department minister ministers office authority commission commissioner council court courts
	tribunal agency service services board government parliament oireachtas dáil seanad
	value-added value added vat capital gains income corporation stamp carbon property local vehicle
	registration motor customs excise social welfare universal state public national
	jobseeker jobseekers carer carers child children family disability illness maternity paternity
	housing home rent help buy film research development knowledge box kind employment employer employee
	employees self-employed worker workers company companies business businesses trust trusts
	contributory non-contributory means test class classes annual weekly monthly year years
	protection affairs education health enterprise trade labour justice transport environment climate
	account accounts bank central deposit interest pay related earn paye prsi usc cgt cat lpt vrt
	member states member union european community communities international global market single
	ireland irish britain british england scotland wales northern kingdom united uk eu
	january february march april may june july august september october november december
	monday tuesday wednesday thursday friday saturday sunday
	principal common system mineral oil natural gas solid fuel fuels
	cáin bhreisluacha ioncaim árachas sóisialach pá-choibhneasa leas pinsean stáit státchiste coimisinéirí
	ioncaim chánach stampála chaipitiúil gnóthachan
	φόρος φπα προστιθέμενης αξίας данък ддс добавена стойност осигуровки
	citizens information intreo centre center advice money residential tenancies ombudsman registry
	registrar workplace relations bureau institute college university hospital school schools county city
	carlow cavan clare cork donegal dublin galway kerry kildare kilkenny laois leitrim limerick longford
	louth mayo meath monaghan offaly roscommon sligo tipperary waterford westmeath wexford wicklow
	antrim armagh down fermanagh derry londonderry tyrone belfast london edinburgh cardiff
`)

func termWordSet(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// IsTermWord reports whether word is one of TermWords.
func IsTermWord(word string) bool {
	w := strings.ToLower(word)
	w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
	w = strings.TrimSuffix(w, "'")
	return TermWords[w]
}

// unlistedKind stands in logs for a kind outside Kinds.
const unlistedKind = "UNLISTED_KIND"

// LogID is a concept id as a log line may carry it. A kind outside the
// vocabulary came from a tenant's model, so it is tenant-written text: it
// is replaced, and the domain and jurisdiction are kept only when they are
// in the vocabulary too. Ids of another shape are replaced whole.
func LogID(id string) string {
	parts := strings.Split(id, ":")
	if len(parts) < 3 {
		return unlistedKind
	}
	domain, jur := parts[0], parts[1]
	if !slices.Contains(Domains, domain) {
		domain = "UNLISTED_DOMAIN"
	}
	if !wellShapedJurisdiction.MatchString(jur) {
		jur = "UNLISTED_JURISDICTION"
	}
	if !slices.Contains(Kinds, parts[2]) {
		return domain + ":" + jur + ":" + unlistedKind
	}
	return domain + ":" + jur + ":" + strings.Join(parts[2:], ":")
}

// wellShapedJurisdiction is a jurisdiction code's shape (two to six capital
// letters: IE, UK, EU, GLOBAL), which holds no personal data.
var wellShapedJurisdiction = regexp.MustCompile(`^[A-Z]{2,6}$`)
