package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
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
