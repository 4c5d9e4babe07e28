// Command gen writes the schema files of the schemas folder from their Go description, and the
// loader's form of the suite schemas (loader_gen.go).
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/skillgate/skillgate/schemas/internal/build"
)

func main() {
	dir := "."
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	for name, schema := range build.Files() {
		data, err := build.Render(schema)
		if err != nil {
			fail(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			fail(err)
		}
	}
	src, err := build.LoaderSource()
	if err != nil {
		fail(err)
	}
	if err := os.WriteFile(filepath.Join(dir, build.LoaderFile), src, 0o644); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}
