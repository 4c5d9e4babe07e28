// Command gen writes the schema files of the schemas folder from their Go description.
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
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}
