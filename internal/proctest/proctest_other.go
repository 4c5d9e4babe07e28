//go:build !unix

package proctest

// Gone: without unix signals a test cannot look for the process, so it counts as gone.
func Gone(pid int) bool { return true }

// Kill does nothing without unix signals.
func Kill(pid int) {}
