package main

import (
	"os/exec"
	"testing"
)

// TestMigrateStepHandler runs the handler's own tests (Node's test runner):
// a rollback's update answers SUCCESS without invoking migrate, a newer
// version runs it, an error fails the request, Delete runs nothing.
func TestMigrateStepHandler(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is needed (the CDK CLI needs it too): ", err)
	}
	out, err := exec.Command(node, "--test", migrateStepDir+"/index.test.mjs").CombinedOutput()
	if err != nil {
		t.Fatalf("migratestep/index.test.mjs: %v\n%s", err, out)
	}
}
