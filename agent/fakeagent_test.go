package agent

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The test binary doubles as a fake agent CLI: run with SKILLGATE_FAKE_AGENT=<mode>, it behaves
// like an agent printing a recorded transcript (and crashing, hanging, misbehaving…), so the
// executors are tested against a real process without any agent installed.
func TestMain(m *testing.M) {
	if mode := os.Getenv("SKILLGATE_FAKE_AGENT"); mode != "" {
		os.Exit(fakeAgent(mode))
	}
	// Under -race every fake agent would sleep a second at exit (the race detector's
	// atexit_sleep_ms, for goroutines still running): a minute over the package. The fake
	// agents' own races are not what these tests look for; this process keeps the sleep.
	os.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	os.Exit(m.Run())
}

// fakeRecord is what the fake agent saw, written to FAKE_RECORD for the test to check.
type fakeRecord struct {
	Args   []string `json:"args"`
	Stdin  string   `json:"stdin"`
	Cwd    string   `json:"cwd"`
	Files  []string `json:"files"`
	Secret string   `json:"secret"`
	// Trust is GEMINI_CLI_TRUST_WORKSPACE as the agent got it.
	Trust string `json:"trust"`
	// Pwd is $PWD as the agent got it.
	Pwd string `json:"pwd"`
}

func fakeAgent(mode string) int {
	args := os.Args[1:]
	if len(args) > 0 && args[len(args)-1] == "--version" {
		if f := os.Getenv("FAKE_VERSION_COUNT"); f != "" {
			fh, _ := os.OpenFile(f, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
			fmt.Fprintln(fh, "called")
			fh.Close()
		}
		fmt.Println()
		fmt.Println("9.9.9 (Fake Agent)")
		return 0
	}
	if mode == "sleep" {
		_ = os.WriteFile(os.Getenv("FAKE_PIDFILE"), []byte(strconv.Itoa(os.Getpid())), 0o600)
		time.Sleep(time.Hour)
		return 0
	}
	record(args)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	fixture := os.Getenv("FAKE_FIXTURE")
	switch mode {
	case "replay":
		printLines(out, fixture, -1)
		fmt.Fprint(os.Stderr, os.Getenv("FAKE_STDERR"))
		code, _ := strconv.Atoi(os.Getenv("FAKE_EXIT"))
		return code
	case "crash":
		n, _ := strconv.Atoi(os.Getenv("FAKE_LINES"))
		printLines(out, fixture, n)
		out.WriteString(`{"type":"assistant","message":{"id":"msg_cut","content":[{"type":"text","te`)
		out.Flush()
		fmt.Fprintln(os.Stderr, "panic: agent crashed")
		return 3
	case "hang":
		n, _ := strconv.Atoi(os.Getenv("FAKE_LINES"))
		printLines(out, fixture, n)
		out.Flush()
		fmt.Fprint(os.Stderr, os.Getenv("FAKE_STDERR"))
		child := exec.Command(os.Args[0])
		child.Env = append(os.Environ(), "SKILLGATE_FAKE_AGENT=sleep")
		child.Stdout = os.Stdout // the grandchild holds the pipe too
		if err := child.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		time.Sleep(time.Hour)
		return 0
	case "interrupt":
		// Print FAKE_LINES lines, wait for SIGINT, then print the rest (what the CLI printed
		// once interrupted) and exit 1; without SIGINT, hang.
		interrupted := make(chan os.Signal, 1)
		signal.Notify(interrupted, os.Interrupt)
		n, _ := strconv.Atoi(os.Getenv("FAKE_LINES"))
		printLines(out, fixture, n)
		out.Flush()
		select {
		case <-interrupted:
		case <-time.After(time.Hour):
		}
		data, _ := os.ReadFile(fixture)
		lines := strings.SplitAfter(string(data), "\n")
		for _, l := range lines[min(n, len(lines)):] {
			out.WriteString(l)
		}
		return 1
	case "escape":
		// A descendant leaves the process group and keeps stdout open after the agent exits.
		child := exec.Command(os.Args[0])
		child.Env = append(os.Environ(), "SKILLGATE_FAKE_AGENT=sleep")
		child.Stdout = os.Stdout
		detach(child)
		if err := child.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		printLines(out, fixture, -1)
		return 0
	case "stderr-flood":
		printLines(out, fixture, -1)
		line := strings.Repeat("e", 1023) + "\n"
		for i := 0; i < 200; i++ { // 200 KiB
			os.Stderr.WriteString(line)
		}
		os.Stderr.WriteString("last words\n")
		return 0
	case "stdout-script":
		// Print FAKE_SCRIPT verbatim (it may hold anything: garbage, huge lines, no final newline).
		data, _ := os.ReadFile(fixture)
		out.Write(data)
		return 0
	}
	fmt.Fprintf(os.Stderr, "fake agent: unknown mode %q\n", mode)
	return 2
}

func record(args []string) {
	path := os.Getenv("FAKE_RECORD")
	if path == "" {
		return
	}
	rec := fakeRecord{Args: args, Secret: os.Getenv("FAKE_SECRET"), Trust: os.Getenv("GEMINI_CLI_TRUST_WORKSPACE"), Pwd: os.Getenv("PWD")}
	if !isTerminalStdin() {
		data, _ := io.ReadAll(os.Stdin)
		rec.Stdin = string(data)
	}
	rec.Cwd, _ = os.Getwd()
	_ = filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rec.Files = append(rec.Files, filepath.ToSlash(p))
		}
		return nil
	})
	data, _ := json.Marshal(rec)
	_ = os.WriteFile(path, data, 0o600)
}

// isTerminalStdin is false for the pipe or /dev/null the executor gives the agent.
func isTerminalStdin() bool {
	st, err := os.Stdin.Stat()
	return err != nil || st.Mode()&os.ModeCharDevice != 0
}

// printLines prints the first n lines of a file (all with n < 0), as they are.
func printLines(w *bufio.Writer, path string, n int) {
	data, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	if n < 0 {
		w.Write(data)
		return
	}
	lines := strings.SplitAfter(string(data), "\n")
	for i := 0; i < n && i < len(lines); i++ {
		w.WriteString(lines[i])
	}
}

// writeScript writes what a fake agent in stdout-script mode prints, and returns its path.
func writeScript(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
