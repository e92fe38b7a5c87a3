package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/triggers"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// graphSetupSources are the files, relative to the repository root, that
// decide what the graph step writes: the schema statements, the labels
// they cover, and the shipped dataset.
var graphSetupSources = []string{
	"shared/graph/bolt/dialect.go",
	"shared/graph/schema.go",
	"shared/graph/seeddata",
}

// graphSetupHash is a digest of graphSetupSources under root: it changes
// exactly when the schema or the dataset does.
func graphSetupHash(root string) (string, error) {
	var files []string
	for _, src := range graphSetupSources {
		err := filepath.WalkDir(filepath.Join(root, src), func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && !isTestFile(path) {
				files = append(files, path)
			}
			return err
		})
		if err != nil {
			return "", fmt.Errorf("graph setup sources: %w (synthesize from a checkout of the repository)", err)
		}
	}
	sort.Strings(files)
	h := sha256.New()
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		rel, _ := filepath.Rel(root, f)
		fmt.Fprintf(h, "%s\x00%d\x00", filepath.ToSlash(rel), len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

func isTestFile(path string) bool {
	matched, _ := filepath.Match("*_test.go", filepath.Base(path))
	return matched
}

// graphSetupTrigger runs the graph step during the deploy, after
// everything the graph is reached through exists: its secret, the Bolt
// egress rules, the peering routes, and the Postgres migrations. It reruns
// whenever the function's code or configuration changes, which includes
// GRAPH_SETUP_HASH; a failure fails the deploy.
func (s *Stack) graphSetupTrigger(fn awslambda.Function, f functionSpec) {
	after := []constructs.Construct{s.net.fnSG}
	if sec, ok := s.memgraph.(constructs.Construct); ok {
		after = append(after, sec)
	}
	after = append(after, s.net.mgRoutes...)
	if s.migrateTrigger != nil {
		after = append(after, s.migrateTrigger)
	}
	triggers.NewTrigger(s.Stack, jsii.String(logicalID(f.Name)+"Trigger"), &triggers.TriggerProps{
		Handler:                fn,
		ExecuteAfter:           &after,
		ExecuteOnHandlerChange: jsii.Bool(true),
		InvocationType:         triggers.InvocationType_REQUEST_RESPONSE,
		Timeout:                seconds(f.Timeout),
	})
}
