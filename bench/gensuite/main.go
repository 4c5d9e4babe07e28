// Command gensuite writes a synthetic eval suite for benchmarks (see internal/benchsuite).
package main

import (
	"flag"
	"log"
	"os"

	"github.com/skillgate/skillgate/internal/benchsuite"
)

func main() {
	tasks := flag.Int("tasks", 10000, "number of task files")
	trials := flag.Int("trials", 3, "trials_per_task")
	out := flag.String("out", "", "folder to write the suite into (created)")
	flag.Parse()
	if *out == "" || *tasks < 1 || *trials < 1 {
		flag.Usage()
		os.Exit(2)
	}
	if err := benchsuite.Write(*out, *tasks, *trials); err != nil {
		log.Fatal(err)
	}
}
