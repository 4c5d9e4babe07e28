//go:build unix

package graders

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// hostileJavaScript are assertions that each allocate gigabytes in one native call of goja
// (issue 27: typed arrays, ArrayBuffer, spreads of a long string, dense copies of sparse arrays,
// argument and key lists from array-likes…). Each must fail alone with a memory message.
var hostileJavaScript = []string{
	"new Uint8Array(8e9).length > 0",
	"new ArrayBuffer(8e9).byteLength > 0",
	"new Float64Array(1e9).length > 0",
	"Uint8Array.from({length: 8e9}).length > 0",
	"new (new Uint8Array(1).constructor)(8e9).length > 0",
	"new (class extends Uint8Array {})(8e9).length > 0",
	"new Float64Array(new Uint8Array(2e8)).length > 0",
	"new Uint8Array(Array(1e9).keys()).length > 0",
	`[..."x".repeat(2e8)].length > 0`,
	`({..."x".repeat(2e8)}).a === undefined`,
	`(() => { const {...r} = "x".repeat(2e8); return true })()`,
	`new Set("x".repeat(2e8)).size > 0`,
	"[...Array(4e9 - 1)].length > 0",
	"[...new Uint8Array(2e8)].length > 0",
	"String.fromCharCode(...Array(1e8)).length > 0",
	`Array.prototype.slice.call("x".repeat(2e8)).length > 0`,
	`"x".repeat(2e8).split("").length > 0`,
	`Object.keys("x".repeat(2e8)).length > 0`,
	`Object.assign({}, "x".repeat(2e8)).a === undefined`,
	"Object.entries(new Uint8Array(2e8)).length > 0",
	"Math.max.apply(null, {length: 1e9}) > 0",
	"Reflect.apply(Math.max, null, {length: 1e9}) > 0",
	"Array(4e9 - 1).sort().length > 0",
	"Array(4e9 - 1).map(x => 1).length > 0",
	"Array(4e9 - 1).toSorted().length > 0",
	"(() => { let a = []; a.length = 4e9 - 1; return a.reverse().length })()",
	"(() => { let a = []; a[4e9 - 2] = 1; return a.flat().length })()",
	"Array(1e9).join().length > 0",
	"JSON.stringify([Array(1e9)]).length > 0",
	"JSON.stringify(new Uint8Array(2e8)).length > 0",
	"new Uint8Array(2e8).join().length > 0",
	`JSON.parse("[" + "0,".repeat(1e8) + "0]").length > 0`,
	`"x".repeat(2e8).replace(/x/g, "yyyyyyyyyy").length > 0`,
	`"x".repeat(2e8).replaceAll("x", "yyyyyyyyyy").length > 0`,
	`"x".repeat(2e8).match(/x/g).length > 0`,
	`[..."x".repeat(1e8).matchAll(/x/g)].length > 0`,
	"String.raw({raw: {length: 1e9}}).length > 0",
	`(() => { try { return new Uint8Array(8e9).length > 0 } catch (e) { return true } finally { } })()`,
}

// virtualSize is the process's address space in bytes (Linux: /proc/self/statm), 0 elsewhere.
func virtualSize(t *testing.T) int64 {
	data, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	pages, err := strconv.ParseInt(strings.Fields(string(data))[0], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return pages * int64(os.Getpagesize())
}

// The assertions run in a child process whose address space may grow by 4 GiB at most: an allocation
// that escaped its guard would end it with "fatal error: out of memory" (or run the machine out
// of memory) instead of failing one assertion.
func TestHostileAssertionsCannotExhaustMemory(t *testing.T) {
	if os.Getenv("SKILLGATE_TEST_HOSTILE_JS") == "1" {
		// What the process already reserved, plus 4 GiB.
		cap := uint64(virtualSize(t)) + 4<<30
		limit := &syscall.Rlimit{Cur: cap, Max: cap}
		if err := syscall.Setrlimit(syscall.RLIMIT_AS, limit); err != nil {
			t.Skipf("cannot cap the address space: %v", err)
		}
		// Refused before it happens ("would allocate …") or stopped by the watchdog when the
		// growth came in steps (a repeat, then a concatenation, then the parse): either way the
		// assertion fails alone, and an allocation that escaped both would end this process.
		for _, src := range hostileJavaScript {
			assertFailsAlone(t, "javascript", src, "over its memory budget")
		}
		return
	}
	if testing.Short() {
		t.Skip("-short: every hostile allocation in a child process")
	}
	if raceEnabled {
		t.Skip("the race detector reserves more address space than the cap")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHostileAssertionsCannotExhaustMemory$", "-test.v")
	cmd.Env = append(os.Environ(), "SKILLGATE_TEST_HOSTILE_JS=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestHostileAssertionsCannotExhaustMemory") {
		t.Fatalf("%v\n%s", err, out)
	}
}
