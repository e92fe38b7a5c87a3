// Package codebase holds checks on the repository's own source, run with
// the unit tests so a long function is caught before review.
package codebase

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxFuncLines is the longest a function may be, from its func line to its
// closing brace; past that it should be split into named helpers.
const maxFuncLines = 60

// TestNoFunctionIsOverSixtyLines parses every Go file of the module outside
// infra/ (the CDK app), the test servers, npm packages and hidden dirs, and
// names each function that is too long.
func TestNoFunctionIsOverSixtyLines(t *testing.T) {
	root := moduleRoot(t)
	long, files, err := longFunctions(root, maxFuncLines)
	if err != nil {
		t.Fatal(err)
	}
	if files == 0 {
		t.Fatalf("no Go files found under %s", root)
	}
	for _, l := range long {
		t.Errorf("%s: func %s is %d lines (max %d); split it into helpers", l.pos, l.name, l.lines, maxFuncLines)
	}
}

// TestLongFunctionsAreFound proves the check can fail: a function one line
// over the limit is reported and one at the limit is not.
func TestLongFunctionsAreFound(t *testing.T) {
	dir := t.TempDir()
	src := "package x\n\n" + funcOfLines("atLimit", maxFuncLines) + "\n" + funcOfLines("overLimit", maxFuncLines+1)
	if err := os.WriteFile(filepath.Join(dir, "x.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	hidden := filepath.Join(dir, "infra")
	if err := os.Mkdir(hidden, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(hidden, "y.go"), []byte("package y\n\n"+funcOfLines("skipped", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	long, files, err := longFunctions(dir, maxFuncLines)
	if err != nil {
		t.Fatal(err)
	}
	if files != 1 {
		t.Errorf("parsed %d files, want 1 (infra/ skipped)", files)
	}
	if len(long) != 1 || long[0].name != "overLimit" || long[0].lines != maxFuncLines+1 {
		t.Errorf("long functions = %+v, want only overLimit at %d lines", long, maxFuncLines+1)
	}
}

// funcOfLines returns the source of a function exactly n lines long.
func funcOfLines(name string, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "func %s() {\n", name)
	for i := 0; i < n-2; i++ {
		b.WriteString("\t_ = 0\n")
	}
	b.WriteString("}\n")
	return b.String()
}

type longFunc struct {
	pos   string
	name  string
	lines int
}

// longFunctions walks root and returns each function longer than limit lines,
// with the number of Go files it parsed.
func longFunctions(root string, limit int) ([]longFunc, int, error) {
	fset := token.NewFileSet()
	var long []longFunc
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && skipDir(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		rel, _ := filepath.Rel(root, path)
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			start, end := fset.Position(fd.Pos()), fset.Position(fd.End())
			if n := end.Line - start.Line + 1; n > limit {
				long = append(long, longFunc{pos: fmt.Sprintf("%s:%d", rel, start.Line), name: funcName(fd), lines: n})
			}
		}
		return nil
	})
	return long, files, err
}

// skipDir reports the directories outside the check: infra/ is the CDK
// app, the others hold test servers, npm packages and tool state.
func skipDir(name string) bool {
	return name == "infra" || name == ".testenv" || name == "node_modules" || strings.HasPrefix(name, ".")
}

// funcName names a method by its receiver type too, so the report is
// unambiguous.
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if g, ok := t.(*ast.IndexExpr); ok {
		t = g.X
	}
	if g, ok := t.(*ast.IndexListExpr); ok {
		t = g.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fd.Name.Name
	}
	return fd.Name.Name
}

// moduleRoot finds the directory of go.mod above the test's directory.
func moduleRoot(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the test directory")
		}
		dir = parent
	}
}
