package main

import (
	"os"
	"testing"
)

// TestMain lets a test run this test binary as the skillgate command itself (a real process it
// can kill): with SKILLGATE_TEST_AS_MAIN=1 the binary is skillgate.
func TestMain(m *testing.M) {
	if os.Getenv("SKILLGATE_TEST_AS_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}
