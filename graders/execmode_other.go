//go:build !unix

package graders

// On systems without execute bits every file counts as executable.
func isExecutableMode(mode uint32) bool { return true }
