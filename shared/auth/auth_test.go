package auth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
)

func bearer(token string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/chat", nil)
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	return r
}

func sign(t *testing.T, method jwt.SigningMethod, key any, kid string, claims jwt.MapClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(method, claims)
	if kid != "" {
		tok.Header["kid"] = kid
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func validClaims() jwt.MapClaims {
	return jwt.MapClaims{"sub": "user-1", "org": "acme", "exp": time.Now().Add(time.Hour).Unix(), "iss": "https://issuer.test"}
}

func TestHS256(t *testing.T) {
	secret := []byte("0123456789abcdef0123456789abcdef")
	v, err := NewJWT(context.Background(), JWTConfig{HS256Secret: secret, TenantClaim: "org", Issuer: "https://issuer.test"})
	if err != nil {
		t.Fatal(err)
	}
	caller, err := v.Authenticate(bearer(sign(t, jwt.SigningMethodHS256, secret, "", validClaims())))
	if err != nil {
		t.Fatalf("valid token refused: %v", err)
	}
	if caller.UserID != "user-1" || caller.TenantID != TenantUUID("acme") {
		t.Fatalf("caller = %+v", caller)
	}

	expired := validClaims()
	expired["exp"] = time.Now().Add(-time.Hour).Unix()
	noTenant := validClaims()
	delete(noTenant, "org")
	wrongIssuer := validClaims()
	wrongIssuer["iss"] = "https://evil.test"
	cases := map[string]string{
		"none":          "",
		"garbage":       "not-a-jwt",
		"wrong secret":  sign(t, jwt.SigningMethodHS256, []byte("another-secret-another-secret-xx"), "", validClaims()),
		"expired":       sign(t, jwt.SigningMethodHS256, secret, "", expired),
		"no tenant":     sign(t, jwt.SigningMethodHS256, secret, "", noTenant),
		"wrong issuer":  sign(t, jwt.SigningMethodHS256, secret, "", wrongIssuer),
		"alg none":      sign(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, "", validClaims()),
		"wrong scheme ": "",
	}
	for name, tok := range cases {
		r := bearer(tok)
		if name == "wrong scheme " {
			r.Header.Set("Authorization", "Basic dXNlcjpwYXNz")
		}
		if _, err := v.Authenticate(r); !errors.Is(err, ErrUnauthenticated) {
			t.Errorf("%s: err = %v, want ErrUnauthenticated", name, err)
		}
	}
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func TestJWKSWithRS256AndES256(t *testing.T) {
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pad := func(i *big.Int) []byte { b := make([]byte, 32); i.FillBytes(b); return b }
	jwks := map[string]any{"keys": []map[string]string{
		{"kty": "RSA", "kid": "rsa-1", "use": "sig", "alg": "RS256", "n": b64(rsaKey.N.Bytes()), "e": b64(big.NewInt(int64(rsaKey.E)).Bytes())},
		{"kty": "EC", "kid": "ec-1", "use": "sig", "alg": "ES256", "crv": "P-256", "x": b64(pad(ecKey.X)), "y": b64(pad(ecKey.Y))},
	}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(jwks)
	}))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	v, err := NewJWT(ctx, JWTConfig{JWKSURL: srv.URL, TenantClaim: "org"})
	if err != nil {
		t.Fatal(err)
	}
	for name, tok := range map[string]string{
		"RS256": sign(t, jwt.SigningMethodRS256, rsaKey, "rsa-1", validClaims()),
		"ES256": sign(t, jwt.SigningMethodES256, ecKey, "ec-1", validClaims()),
	} {
		if c, err := v.Authenticate(bearer(tok)); err != nil || c.UserID != "user-1" {
			t.Errorf("%s: caller %+v err %v", name, c, err)
		}
	}
	otherKey, _ := rsa.GenerateKey(rand.Reader, 2048)
	if _, err := v.Authenticate(bearer(sign(t, jwt.SigningMethodRS256, otherKey, "rsa-1", validClaims()))); !errors.Is(err, ErrUnauthenticated) {
		t.Errorf("token signed by an unknown key: err = %v", err)
	}
	// An HS256 token must not verify against the JWKS (algorithm confusion).
	if _, err := v.Authenticate(bearer(sign(t, jwt.SigningMethodHS256, []byte("x"), "rsa-1", validClaims()))); !errors.Is(err, ErrUnauthenticated) {
		t.Errorf("HS256 token against JWKS: err = %v", err)
	}
}

func TestDevHeadersAndTenantUUID(t *testing.T) {
	d := Dev{DefaultTenant: "dev-tenant", DefaultUser: "dev-user"}
	r := httptest.NewRequest(http.MethodPost, "/chat", nil)
	c, err := d.Authenticate(r)
	if err != nil || c.TenantID != TenantUUID("dev-tenant") || c.UserID != "dev-user" {
		t.Fatalf("defaults: %+v %v", c, err)
	}
	r.Header.Set("X-Tenant-Id", "3f1d2c4b-0000-4000-8000-000000000001")
	r.Header.Set("X-User-Id", "alice")
	c, _ = d.Authenticate(r)
	if c.TenantID != "3f1d2c4b-0000-4000-8000-000000000001" || c.UserID != "alice" {
		t.Fatalf("headers: %+v", c)
	}
	first, again, other := TenantUUID("acme"), TenantUUID("acme"), TenantUUID("acme2")
	if first == other || first != again {
		t.Fatal("tenant uuid mapping must be stable and distinct")
	}
}

// Behind IAM auth the SigV4 signature fills Authorization; the user's token
// comes in the configured second header, and Authorization is then ignored.
func TestTokenFromASecondHeader(t *testing.T) {
	secret := []byte("0123456789abcdef0123456789abcdef")
	v, err := NewJWT(context.Background(), JWTConfig{HS256Secret: secret, TenantClaim: "org", Header: "X-User-Authorization"})
	if err != nil {
		t.Fatal(err)
	}
	token := sign(t, jwt.SigningMethodHS256, secret, "", validClaims())
	r := httptest.NewRequest(http.MethodPost, "/chat", nil)
	r.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20260101/eu-west-1/lambda/aws4_request, Signature=abc")
	r.Header.Set("X-User-Authorization", "Bearer "+token)
	if caller, err := v.Authenticate(r); err != nil || caller.UserID != "user-1" {
		t.Fatalf("token in the second header: %+v, %v", caller, err)
	}
	if _, err := v.Authenticate(bearer(token)); !errors.Is(err, ErrUnauthenticated) {
		t.Errorf("token in Authorization accepted although the second header is configured: %v", err)
	}
}

// TestFutureIssuedAt: a token issued further in the future than the iat
// leeway is refused; within it (clock skew) it is accepted, and so is a
// token without iat.
func TestFutureIssuedAt(t *testing.T) {
	secret := []byte("0123456789abcdef0123456789abcdef")
	v, err := NewJWT(context.Background(), JWTConfig{HS256Secret: secret, TenantClaim: "org"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		iat  any
		ok   bool
	}{
		{"past", time.Now().Add(-time.Hour).Unix(), true},
		{"skewed 30s", time.Now().Add(30 * time.Second).Unix(), true},
		{"absent", nil, true},
		{"2 minutes ahead", time.Now().Add(2 * time.Minute).Unix(), false},
		{"a year ahead", time.Now().Add(365 * 24 * time.Hour).Unix(), false},
		{"not a number", "tomorrow", false},
	} {
		claims := validClaims()
		if c.iat != nil {
			claims["iat"] = c.iat
		}
		_, err := v.Authenticate(bearer(sign(t, jwt.SigningMethodHS256, secret, "", claims)))
		if c.ok != (err == nil) || (err != nil && !errors.Is(err, ErrUnauthenticated)) {
			t.Errorf("iat %s: err = %v", c.name, err)
		}
	}
	strict, err := NewJWT(context.Background(), JWTConfig{HS256Secret: secret, TenantClaim: "org", IATLeeway: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	claims := validClaims()
	claims["iat"] = time.Now().Add(30 * time.Second).Unix()
	if _, err := strict.Authenticate(bearer(sign(t, jwt.SigningMethodHS256, secret, "", claims))); err == nil {
		t.Error("iat 30s ahead accepted with a 10s leeway")
	}
}

// TestTenantClaimsNeverAlias re-runs the probe in which a token naming the
// uuid5 of "acme" (or that uuid braced) read acme's conversations: every
// distinct claim maps to a distinct tenant.
func TestTenantClaimsNeverAlias(t *testing.T) {
	acme := TenantUUID("acme")
	claims := []string{
		"acme", "Acme", "acme ", acme, "{" + acme + "}", strings.ToUpper(acme), "urn:uuid:" + acme,
		strings.ReplaceAll(acme, "-", ""),
		"3f1d2c4b-0000-4000-8000-000000000001", "{3f1d2c4b-0000-4000-8000-000000000001}",
		"3F1D2C4B-0000-4000-8000-000000000001", TenantUUID("3F1D2C4B-0000-4000-8000-000000000001"),
	}
	seen := map[string]string{}
	for _, c := range claims {
		id := TenantUUID(c)
		if _, err := uuid.Parse(id); err != nil {
			t.Fatalf("TenantUUID(%q) = %q is not a uuid", c, id)
		}
		if prev, ok := seen[id]; ok {
			t.Errorf("claims %q and %q both map to tenant %s", prev, c, id)
		}
		seen[id] = c
	}
	// A tenant keyed by a canonical (non-v5) uuid keeps its id.
	if got := TenantUUID("3f1d2c4b-0000-4000-8000-000000000001"); got != "3f1d2c4b-0000-4000-8000-000000000001" {
		t.Errorf("canonical uuid claim mapped to %s", got)
	}
}

func FuzzTenantUUID(f *testing.F) {
	f.Add("acme", TenantUUID("acme"))
	f.Add("3f1d2c4b-0000-4000-8000-000000000001", "{3f1d2c4b-0000-4000-8000-000000000001}")
	f.Fuzz(func(t *testing.T, a, b string) {
		if a != b && TenantUUID(a) == TenantUUID(b) {
			t.Fatalf("claims %q and %q meet at %s", a, b, TenantUUID(a))
		}
	})
}

// An HS256 secret shorter than the hash output (RFC 7518 section 3.2) is
// refused: it could be found by trying keys against any one token.
func TestShortHS256SecretIsRefused(t *testing.T) {
	for _, n := range []int{1, 3, 16, 31} {
		if _, err := NewJWT(context.Background(), JWTConfig{HS256Secret: make([]byte, n), TenantClaim: "org"}); err == nil {
			t.Errorf("a %d-byte HS256 secret was accepted", n)
		}
	}
	if _, err := NewJWT(context.Background(), JWTConfig{HS256Secret: make([]byte, 32), TenantClaim: "org"}); err != nil {
		t.Errorf("a 32-byte HS256 secret: %v", err)
	}
}
