package main

import (
	"os/exec"
	"strings"
	"testing"
)

// No function links protobuf or gRPC: spans go out as OTLP JSON, and the
// official exporter's protobuf and gRPC were 3.8 MB of this binary.
func TestNoFunctionLinksProtobufOrGRPC(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-tags", "lambda.norpc", "../...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for pkg := range strings.SplitSeq(string(out), "\n") {
		if strings.HasPrefix(pkg, "google.golang.org/grpc") || strings.HasPrefix(pkg, "google.golang.org/protobuf") {
			t.Errorf("a function links %s", pkg)
		}
	}
}
