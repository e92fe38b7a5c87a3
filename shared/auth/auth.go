// Package auth turns an HTTP request into a caller identity. Identity always
// comes from a verified token (JWT mode) or, for local development only,
// from headers (dev mode); never from the request body.
package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/MicahParks/keyfunc/v3"
	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
)

// ErrUnauthenticated means no credentials, or credentials that do not verify.
var ErrUnauthenticated = errors.New("unauthenticated")

// Caller is the verified identity of a request. TenantID is always a UUID.
type Caller struct {
	TenantID string
	UserID   string
}

// Authenticator verifies a request.
type Authenticator interface {
	Authenticate(r *http.Request) (Caller, error)
}

// tenantNamespace maps tenant claims to stable UUIDs, so every table can
// key tenants by uuid.
var tenantNamespace = uuid.MustParse("6b1f3c52-3d8e-4d1e-9a53-2f0c8b7a9e10")

// TenantUUID maps a tenant claim to the tenant's UUID so that no two
// distinct claims meet. A claim written as a UUID in canonical form
// (lower-case, hyphenated, nothing around it) and not of version 5 is its
// own UUID. Any other claim ("acme", a braced or upper-case UUID, a
// version-5 UUID) is hashed to a version-5 UUID of the exact claim text: a
// hashed claim can then never equal a claim kept as it is, and the same
// UUID written two ways is two tenants, not one.
func TenantUUID(tenant string) string {
	if id, err := uuid.Parse(tenant); err == nil && id.String() == tenant && id.Version() != 5 {
		return tenant
	}
	return uuid.NewSHA1(tenantNamespace, []byte(tenant)).String()
}

// Dev trusts X-Tenant-Id / X-User-Id headers. Local use only: the chat
// function refuses to start with it under Lambda.
type Dev struct {
	DefaultTenant string
	DefaultUser   string
}

// Authenticate implements Authenticator.
func (d Dev) Authenticate(r *http.Request) (Caller, error) {
	tenant := strings.TrimSpace(r.Header.Get("X-Tenant-Id"))
	if tenant == "" {
		tenant = d.DefaultTenant
	}
	user := strings.TrimSpace(r.Header.Get("X-User-Id"))
	if user == "" {
		user = d.DefaultUser
	}
	if tenant == "" || user == "" {
		return Caller{}, ErrUnauthenticated
	}
	return Caller{TenantID: TenantUUID(tenant), UserID: user}, nil
}

// MinHS256SecretBytes is the shortest HS256 secret accepted: RFC 7518
// section 3.2 requires a key at least as long as the hash output, 256 bits
// for HS256. A shorter one can be found by trying keys offline against
// any one token.
const MinHS256SecretBytes = 32

// JWTConfig configures bearer-token verification. Exactly one of JWKSURL
// (RS256/ES256 keys) or HS256Secret must be set.
type JWTConfig struct {
	JWKSURL     string
	HS256Secret []byte
	Issuer      string
	Audience    string
	// TenantClaim names the claim holding the tenant (default "tenant_id").
	TenantClaim string
	// UserClaim names the claim holding the user (default "sub").
	UserClaim string
	// Header carries "Bearer <token>" (default Authorization). Behind a
	// Function URL with IAM auth, SigV4 owns Authorization, so the token
	// comes in a second header such as X-User-Authorization.
	Header string
	// Leeway is the clock skew allowed on exp and nbf.
	Leeway time.Duration
	// IATLeeway is how far in the future iat may be (DefaultIATLeeway
	// when zero): a token from the future is a forgery or a broken clock.
	IATLeeway time.Duration
}

// DefaultIATLeeway is the clock skew allowed on a token's iat.
const DefaultIATLeeway = 60 * time.Second

// JWT verifies bearer tokens.
type JWT struct {
	cfg     JWTConfig
	keyFunc jwt.Keyfunc
	parser  *jwt.Parser
}

// NewJWT builds a verifier. With a JWKS URL the key set is fetched now and
// refreshed in the background until ctx ends.
func NewJWT(ctx context.Context, cfg JWTConfig) (*JWT, error) {
	if cfg.TenantClaim == "" {
		cfg.TenantClaim = "tenant_id"
	}
	if cfg.UserClaim == "" {
		cfg.UserClaim = "sub"
	}
	if cfg.Header == "" {
		cfg.Header = "Authorization"
	}
	if cfg.IATLeeway <= 0 {
		cfg.IATLeeway = DefaultIATLeeway
	}
	opts := []jwt.ParserOption{jwt.WithLeeway(cfg.Leeway), jwt.WithExpirationRequired()}
	if cfg.Issuer != "" {
		opts = append(opts, jwt.WithIssuer(cfg.Issuer))
	}
	if cfg.Audience != "" {
		opts = append(opts, jwt.WithAudience(cfg.Audience))
	}
	v := &JWT{cfg: cfg}
	switch {
	case cfg.JWKSURL != "" && len(cfg.HS256Secret) > 0:
		return nil, errors.New("jwt: set either a JWKS URL or an HS256 secret, not both")
	case len(cfg.HS256Secret) > 0 && len(cfg.HS256Secret) < MinHS256SecretBytes:
		return nil, fmt.Errorf("jwt: the HS256 secret is %d bytes; it must be at least %d", len(cfg.HS256Secret), MinHS256SecretBytes)
	case cfg.JWKSURL != "":
		kf, err := keyfunc.NewDefaultCtx(ctx, []string{cfg.JWKSURL})
		if err != nil {
			return nil, fmt.Errorf("jwt: load JWKS: %w", err)
		}
		v.keyFunc = kf.Keyfunc
		opts = append(opts, jwt.WithValidMethods([]string{"RS256", "RS384", "RS512", "ES256", "ES384", "PS256"}))
	case len(cfg.HS256Secret) > 0:
		secret := cfg.HS256Secret
		v.keyFunc = func(*jwt.Token) (any, error) { return secret, nil }
		opts = append(opts, jwt.WithValidMethods([]string{"HS256"}))
	default:
		return nil, errors.New("jwt: a JWKS URL or an HS256 secret is required")
	}
	v.parser = jwt.NewParser(opts...)
	return v, nil
}

// Authenticate implements Authenticator.
func (v *JWT) Authenticate(r *http.Request) (Caller, error) {
	h := r.Header.Get(v.cfg.Header)
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
		return Caller{}, ErrUnauthenticated
	}
	claims := jwt.MapClaims{}
	if _, err := v.parser.ParseWithClaims(strings.TrimSpace(token), claims, v.keyFunc); err != nil {
		return Caller{}, fmt.Errorf("%w: %v", ErrUnauthenticated, err)
	}
	if iat, err := claims.GetIssuedAt(); err != nil || (iat != nil && iat.After(time.Now().Add(v.cfg.IATLeeway))) {
		return Caller{}, fmt.Errorf("%w: the token is issued in the future", ErrUnauthenticated)
	}
	tenant, _ := claims[v.cfg.TenantClaim].(string)
	user, _ := claims[v.cfg.UserClaim].(string)
	if strings.TrimSpace(tenant) == "" || strings.TrimSpace(user) == "" {
		return Caller{}, fmt.Errorf("%w: token lacks the %q or %q claim", ErrUnauthenticated, v.cfg.TenantClaim, v.cfg.UserClaim)
	}
	return Caller{TenantID: TenantUUID(tenant), UserID: user}, nil
}
