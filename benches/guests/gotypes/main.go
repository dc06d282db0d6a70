// Parses and type-checks the standard library's go/... packages from source: the benchmark
// workload gotypes (see benches/README.md). `gotypes [PKG...]` replaces the default package
// list; the sources come from the GOROOT the binary was built with (runtime.GOROOT()). For each
// package (and each package name in its directory, sorted) it prints the number of names in the
// package scope, then a `total` line; type errors are ignored. The output does not depend on
// timing or map order, so the harness checks every run's stdout against the native run's. The
// harness's full package list (GOTYPES_PACKAGES in benches/src/workloads.rs) must equal pkgs.
package main

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
)

func main() {
	root := filepath.Join(runtime.GOROOT(), "src")
	pkgs := []string{"go/ast", "go/build", "go/constant", "go/doc", "go/format", "go/parser", "go/printer", "go/scanner", "go/token", "go/types"}
	if len(os.Args) > 1 {
		pkgs = os.Args[1:]
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "source", nil)
	total := 0
	for _, p := range pkgs {
		dir := filepath.Join(root, p)
		parsed, err := parser.ParseDir(fset, dir, func(fi os.FileInfo) bool {
			return !strings.HasSuffix(fi.Name(), "_test.go")
		}, 0)
		if err != nil {
			fmt.Println("parse:", err)
			os.Exit(1)
		}
		names := make([]string, 0, len(parsed))
		for n := range parsed {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			var files []*ast.File
			fnames := make([]string, 0)
			for fn := range parsed[n].Files {
				fnames = append(fnames, fn)
			}
			sort.Strings(fnames)
			for _, fn := range fnames {
				files = append(files, parsed[n].Files[fn])
			}
			conf := types.Config{Importer: imp, Error: func(error) {}}
			pkg, _ := conf.Check(p, fset, files, nil)
			if pkg == nil {
				continue
			}
			count := len(pkg.Scope().Names())
			total += count
			fmt.Printf("%s %s %d\n", p, n, count)
		}
	}
	fmt.Println("total", total)
}
