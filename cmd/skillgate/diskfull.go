package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/skillgate/skillgate/internal/ioerr"
	"github.com/skillgate/skillgate/report"
	"github.com/skillgate/skillgate/results"
)

// diskFullFailure reports err when it is the device (or the quota) running out while skillgate
// writes its outputs: an I/O failure, not a configuration error, so the exit status is 1 and the
// message says what was kept. ok is false for any other error.
func (a *app) diskFullFailure(err error, outDir string) (code int, ok bool) {
	if err == nil || !ioerr.DiskFull(err) {
		return 0, false
	}
	fmt.Fprintf(a.stderr, "skillgate: I/O failure: no space left on the device holding %s (%v)\n", outDir, err)
	kept := keptOutputs(outDir, a.started)
	if len(kept) == 0 {
		fmt.Fprintln(a.stderr, "skillgate: nothing this run wrote was kept")
	} else {
		fmt.Fprintf(a.stderr, "skillgate: kept: %s\n", strings.Join(kept, ", "))
	}
	fmt.Fprintln(a.stderr, "skillgate: free space there (or pass --out on another device) and run again; `skillgate report` regenerates the reports from the results kept, and recovers a journal's finished tasks")
	return exitFailed, true
}

// keptOutputs lists the results files, journals and reports below outDir that were written
// since the run started (a results file, a report file and a journal line are written whole or
// not at all), each with what it is.
func keptOutputs(outDir string, since time.Time) []string {
	var kept []string
	recent := func(p string) bool {
		fi, err := os.Stat(p)
		// File times may be coarser than the clock: allow a second.
		return err == nil && fi.Mode().IsRegular() && !fi.ModTime().Before(since.Add(-time.Second))
	}
	files, _ := filepath.Glob(filepath.Join(outDir, "results", "*"))
	sort.Strings(files)
	for _, f := range files {
		base := filepath.Base(f)
		switch {
		case strings.HasPrefix(base, ".") || !recent(f):
		case strings.HasSuffix(base, results.JournalSuffix):
			kept = append(kept, f+" (a journal: `skillgate report "+f+"` recovers its finished tasks)")
		case strings.HasSuffix(base, ".json"):
			kept = append(kept, f)
		}
	}
	for _, name := range []string{report.JUnitFile, report.SARIFFile, report.CommentFile, report.SummaryFile, report.HTMLFile} {
		if p := filepath.Join(outDir, name); recent(p) {
			kept = append(kept, p)
		}
	}
	return kept
}
