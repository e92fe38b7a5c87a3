// Package testenv gives tests the addresses of the real servers that
// scripts/test-servers.sh starts once per test run.
package testenv

import (
	"os"
	"testing"
)

// Require returns the value of the environment variable name (for example
// TEST_DATABASE_URL). When it is unset the test is skipped, unless
// REQUIRE_TEST_SERVERS=1 (as under `make test`), where it fails: a missing
// server must never turn a test run green.
func Require(t testing.TB, name string) string {
	t.Helper()
	v := os.Getenv(name)
	if v != "" {
		return v
	}
	if os.Getenv("REQUIRE_TEST_SERVERS") == "1" {
		t.Fatalf("%s is not set: start the test servers with scripts/test-servers.sh (make test does)", name)
	}
	t.Skipf("%s not set; run `make test` to start the test servers", name)
	return ""
}

// BuildsBinary skips a test that builds a binary (a Lambda bootstrap, a
// command) under `go test -short`, which `make test-unit` uses to stay a
// fast inner loop; `make test` runs it.
func BuildsBinary(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a binary; skipped under -short (make test runs it)")
	}
}
