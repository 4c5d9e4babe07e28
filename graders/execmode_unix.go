//go:build unix

package graders

// isExecutableMode reports whether a file mode allows executing it.
func isExecutableMode(mode uint32) bool { return mode&0o111 != 0 }
