package chat

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"regintel/shared/prompt"
)

// The prompt_cache_key is an HMAC with the deployment's secret: stable for
// one tenant and sheet (so the provider groups the tenant's requests), and
// not the unkeyed hash of public values, so someone who guesses a tenant's
// id cannot confirm it from a request's key.
func TestPromptCacheKeyIsKeyedWithTheDeploymentSecret(t *testing.T) {
	sheet := prompt.DefaultSheet()
	secret := []byte(strings.Repeat("k", 32))
	key := promptCacheKey(secret, "tenant-a", sheet)
	if again := promptCacheKey(secret, "tenant-a", sheet); again != key {
		t.Fatalf("the key changed between calls: %s, %s", key, again)
	}
	if other := promptCacheKey(secret, "tenant-b", sheet); other == key {
		t.Fatal("two tenants share a key")
	}
	if otherSecret := promptCacheKey([]byte(strings.Repeat("j", 32)), "tenant-a", sheet); otherSecret == key {
		t.Fatal("the key does not depend on the secret")
	}
	unkeyed := sha256.Sum256([]byte("regintel prompt cache\x00" + "tenant-a" + "\x00" + sheet.Fingerprint()))
	if key == "pc-"+hex.EncodeToString(unkeyed[:16]) {
		t.Fatal("the key is the unkeyed hash of the tenant id and the sheet")
	}
}

// An engine given no secret makes its own, so its keys are never the
// unkeyed hash.
func TestEngineWithoutCacheSecretMakesOne(t *testing.T) {
	e := New(Deps{}, Config{})
	if len(e.cfg.PromptCacheSecret) < 32 {
		t.Fatalf("secret of %d bytes", len(e.cfg.PromptCacheSecret))
	}
	if string(New(Deps{}, Config{}).cfg.PromptCacheSecret) == string(e.cfg.PromptCacheSecret) {
		t.Fatal("two engines made the same secret")
	}
}
