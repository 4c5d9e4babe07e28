// Package procgroup runs a child program in a process group of its own, so cancelling it (a
// timeout, a cancelled run) kills it together with every process it started: a shell script's
// children, a test runner's workers.
package procgroup
