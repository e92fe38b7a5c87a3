package pii

import "strings"

// SensitiveKeys are property or field names that identify a person or a
// conversation, in normalised form (lower case, letters and digits only, so
// "user_id", "userId" and "User-ID" are the same key). The graph guard
// rejects any write carrying one of them, whatever the value.
var SensitiveKeys = []string{
	"userid", "username", "tenantid", "conversationid", "sessionid", "accountid", "customerid",
	"email", "emailaddress", "phone", "phonenumber", "mobile", "mobilenumber", "telephone", "tel",
	"address", "homeaddress", "postaladdress", "streetaddress", "eircode", "postcode", "zipcode",
	"ppsn", "ppsnumber", "pps", "nino", "nationalinsurancenumber", "ninumber", "ssn", "taxid",
	"iban", "bic", "accountnumber", "bankaccount", "sortcode", "cardnumber", "creditcard", "cvv",
	"dateofbirth", "dob", "birthdate", "firstname", "lastname", "surname", "fullname",
	"passport", "passportnumber", "driverlicence", "driverslicense", "ipaddress", "ip",
}

var sensitiveKeySet = func() map[string]bool {
	m := make(map[string]bool, len(SensitiveKeys))
	for _, k := range SensitiveKeys {
		m[k] = true
	}
	return m
}()

// NormalizeKey lower-cases key and drops everything but letters and digits.
func NormalizeKey(key string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(key) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// sensitiveSuffixes also match when qualified by a prefix ("contact_email",
// "owner_user_id", "home_address"). Other keys match exactly only, so that
// "automobile" or "relationship" are not caught by accident.
var sensitiveSuffixes = []string{
	"userid", "tenantid", "conversationid", "sessionid", "customerid",
	"email", "emailaddress", "phone", "phonenumber", "address", "ppsn", "nino",
	"iban", "accountnumber", "cardnumber", "dateofbirth", "passportnumber",
}

// IsSensitiveKey reports whether key names personal data.
func IsSensitiveKey(key string) bool {
	k := NormalizeKey(key)
	if sensitiveKeySet[k] {
		return true
	}
	for _, s := range sensitiveSuffixes {
		if strings.HasSuffix(k, s) {
			return true
		}
	}
	return false
}
