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
