package main

import (
	"fmt"
	"runtime/debug"
)

// Set at build time: go build -ldflags "-X main.version=v1.2.3 -X main.commit=$(git rev-parse HEAD) -X main.date=…"
var (
	version = "dev"
	commit  = ""
	date    = ""
)

// buildInfo returns the version and the commit this binary was built from, falling back to
// what the Go toolchain recorded (module version for `go install …@vX`, VCS revision for builds
// in a checkout).
func buildInfo() (ver, rev, built string) {
	ver, rev, built = version, commit, date
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ver, orUnknown(rev), built
	}
	if ver == "dev" && info.Main.Version != "" && info.Main.Version != "(devel)" {
		ver = info.Main.Version
	}
	fromVCS, modified := false, false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			if rev == "" {
				rev, fromVCS = s.Value, true
			}
		case "vcs.time":
			if built == "" {
				built = s.Value
			}
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if fromVCS && modified {
		rev += "-dirty"
	}
	return ver, orUnknown(rev), built
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

func (a *app) cmdVersion([]string) int {
	ver, rev, built := buildInfo()
	line := fmt.Sprintf("skillgate %s (commit %s", ver, rev)
	if built != "" {
		line += ", built " + built
	}
	fmt.Fprintln(a.stdout, line+")")
	return exitOK
}
