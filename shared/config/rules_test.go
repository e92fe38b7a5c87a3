package config

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Rules of the whole module that keep settings and logs in one shape, checked
// on its source (infra/ is its own module with its own settings).

// Only this package reads the environment. Tests may (t.Setenv, the test
// servers' addresses), and so may testenv, the tests' helper.
func TestOnlyConfigReadsTheEnvironment(t *testing.T) {
	readers := map[string]bool{"Getenv": true, "LookupEnv": true, "Environ": true, "ExpandEnv": true}
	allowed := map[string]bool{"shared/config": true, "shared/testenv": true}
	forEachSourceFile(t, func(rel string, fset *token.FileSet, file *ast.File) {
		if allowed[filepath.ToSlash(filepath.Dir(rel))] {
			return
		}
		for _, sel := range selectors(file, "os", readers) {
			t.Errorf("%s: os.%s: read the setting in shared/config and pass it as a value", fset.Position(sel.Pos()), sel.Sel.Name)
		}
	})
}

// Only a main may make its logger the default, itself or through
// entrypoint, the prologue the mains share.
func TestOnlyMainsSetTheDefaultLogger(t *testing.T) {
	forEachSourceFile(t, func(rel string, fset *token.FileSet, file *ast.File) {
		if file.Name.Name == "main" || filepath.ToSlash(filepath.Dir(rel)) == "shared/entrypoint" {
			return
		}
		for _, sel := range selectors(file, "log/slog", map[string]bool{"SetDefault": true}) {
			t.Errorf("%s: slog.SetDefault in a library: take a *slog.Logger instead", fset.Position(sel.Pos()))
		}
	})
}

// Errors are logged under one key, "err".
func TestErrorsAreLoggedUnderErr(t *testing.T) {
	logCalls := map[string]bool{"Debug": true, "Info": true, "Warn": true, "Error": true, "DebugContext": true,
		"InfoContext": true, "WarnContext": true, "ErrorContext": true, "Log": true, "With": true, "Any": true, "String": true}
	forEachSourceFile(t, func(rel string, fset *token.FileSet, file *ast.File) {
		ast.Inspect(file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if sel, ok := call.Fun.(*ast.SelectorExpr); !ok || !logCalls[sel.Sel.Name] {
				return true
			}
			for _, arg := range call.Args {
				if lit, ok := arg.(*ast.BasicLit); ok && lit.Value == `"error"` {
					t.Errorf(`%s: log the error under "err"`, fset.Position(lit.Pos()))
				}
			}
			return true
		})
	})
}

// forEachSourceFile parses every non-test Go file of the module but infra/.
func forEachSourceFile(t *testing.T, check func(rel string, fset *token.FileSet, file *ast.File)) {
	t.Helper()
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "infra" || d.Name() == "node_modules" || (rel != "." && strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		file, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		check(rel, fset, file)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 50 {
		t.Fatalf("only %d files checked: is the module root %s?", files, root)
	}
}

// selectors returns the uses of pkg.Name (Name in names) in file, under
// whatever name the file imports pkg.
func selectors(file *ast.File, pkg string, names map[string]bool) []*ast.SelectorExpr {
	local := ""
	for _, imp := range file.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == pkg {
			local = filepath.Base(pkg)
			if imp.Name != nil {
				local = imp.Name.Name
			}
		}
	}
	if local == "" {
		return nil
	}
	var found []*ast.SelectorExpr
	ast.Inspect(file, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok && names[sel.Sel.Name] {
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == local {
				found = append(found, sel)
			}
		}
		return true
	})
	return found
}

// This package links nothing but the standard library, so a binary that
// only needs the database (the sweep) can read its settings without
// linking the graph driver or the model clients.
func TestConfigImportsOnlyTheStandardLibrary(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range file.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); strings.Contains(strings.Split(p, "/")[0], ".") || strings.HasPrefix(p, "regintel/") {
				t.Errorf("%s imports %s", name, p)
			}
		}
	}
}
