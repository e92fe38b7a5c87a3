package seeddata

import (
	"io/fs"
	"path"
	"testing"
)

// stagedDir holds values no official page in reach states, each
// corroborated by two independent secondary sources. Load skips it: the
// graph write guard accepts only allowlisted source URLs, so these wait
// there until the guard can store a corroborated value.
const stagedDir = "families/corroborated"

// The staged values must fit the dataset they will join: same schema,
// every series still ordered and unbroken, and each one marked corroborated.
func TestStagedCorroboratedValuesFitTheDataset(t *testing.T) {
	docs := [][]byte{seedJSON}
	for _, dir := range []string{"families", stagedDir} {
		entries, err := fs.ReadDir(families, dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.IsDir() || path.Ext(e.Name()) != ".json" {
				continue
			}
			data, err := fs.ReadFile(families, dir+"/"+e.Name())
			if err != nil {
				t.Fatal(err)
			}
			docs = append(docs, data)
		}
	}
	merged, err := ParseAll(docs...)
	if err != nil {
		t.Fatalf("staged values do not fit the dataset: %v", err)
	}
	live, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(merged.Nodes) <= len(live.Nodes) {
		t.Fatalf("nothing staged: %d nodes merged, %d live", len(merged.Nodes), len(live.Nodes))
	}
	official := map[string]bool{}
	for _, n := range live.Nodes {
		official[n.ID] = true
	}
	for _, n := range merged.Nodes {
		if n.Series == "" || official[n.ID] {
			continue
		}
		if n.Confidence != ConfidenceCorroborated || len(n.CorroboratingURLs) < 2 {
			t.Errorf("%s is staged but not corroborated by two sources", n.ID)
		}
	}
}
