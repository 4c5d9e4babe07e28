// Package proctest is for tests that check that a process skillgate started was stopped: it
// waits for the process to end and, when it does not, kills it so a failing test leaves nothing
// running.
package proctest

import "time"

// WaitGone waits until pid is gone (Gone) or within has passed. A process still running then is
// killed, and WaitGone reports false.
func WaitGone(pid int, within time.Duration) bool {
	deadline := time.Now().Add(within)
	for !Gone(pid) {
		if time.Now().After(deadline) {
			Kill(pid)
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}
