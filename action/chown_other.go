//go:build !unix

package action

// chownToWorkspace does nothing where file ownership works differently (container actions run
// on Linux only).
func chownToWorkspace(dir, workspace string) {}
