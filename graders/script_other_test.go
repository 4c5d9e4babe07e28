//go:build !unix

package graders

import "testing"

// assertGroupKilled needs unix process signals; elsewhere the check is skipped.
func assertGroupKilled(t *testing.T, pidFile string) {
	t.Skip("process groups are checked on unix only")
}
