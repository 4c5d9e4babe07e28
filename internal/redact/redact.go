// Package redact keeps the secret values skillgate knows of out of everything it writes. It holds
// the process's set of secret values — those the action masks (its token and judge key inputs),
// the judge key however it was chosen, and the value of every variable of skillgate's environment
// whose name says it holds a credential (SecretName: the agents' API keys, the runner's and the
// workflow's tokens) — and replaces each with "***" wherever an output is produced: results and
// journal files, report files, the run cache, the log streams, the bodies sent to GitHub
// (docs/action.md#secrets).
//
// A value shorter than MinLength is not a secret here: it would match ordinary text.
package redact

import (
	"bytes"
	"encoding/json"
	"html"
	"io"
	"slices"
	"strings"
	"sync"
)

// Mask replaces every secret value in an output, as GitHub's log masking does.
const Mask = "***"

// MinLength is the length under which a value is not treated as a secret: "true", "1", a short
// placeholder would otherwise be masked wherever the word occurs.
const MinLength = 8

var reg struct {
	mu     sync.RWMutex
	known  map[string]bool // every value and encoding redacted
	sorted []string        // known, longest first
	rep    *strings.Replacer
}

// Add registers secret values. Each line of a value counts (a private key's lines appear one by
// one in output), and so do its JSON and HTML encodings, the forms a secret takes inside the
// files skillgate writes.
func Add(values ...string) {
	var forms []string
	for _, v := range values {
		parts := []string{v}
		if strings.ContainsAny(v, "\r\n") {
			parts = append(parts, strings.FieldsFunc(v, func(r rune) bool { return r == '\n' || r == '\r' })...)
		}
		for _, p := range parts {
			p = strings.TrimSpace(p)
			if len(p) < MinLength {
				continue
			}
			forms = append(forms, p, html.EscapeString(p))
			if enc, err := json.Marshal(p); err == nil {
				forms = append(forms, string(enc[1:len(enc)-1]))
			}
		}
	}
	if len(forms) == 0 {
		return
	}
	reg.mu.Lock()
	defer reg.mu.Unlock()
	if reg.known == nil {
		reg.known = map[string]bool{}
	}
	added := false
	for _, f := range forms {
		if !reg.known[f] {
			reg.known[f] = true
			added = true
		}
	}
	if !added {
		return
	}
	reg.sorted = reg.sorted[:0]
	for f := range reg.known {
		reg.sorted = append(reg.sorted, f)
	}
	// The longest first: where two secrets start at the same place, the longer one is replaced.
	slices.SortFunc(reg.sorted, func(a, b string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	})
	pairs := make([]string, 0, 2*len(reg.sorted))
	for _, f := range reg.sorted {
		pairs = append(pairs, f, Mask)
	}
	reg.rep = strings.NewReplacer(pairs...)
}

// AddEnviron registers the value of every variable of env ("KEY=value") whose name SecretName
// accepts.
func AddEnviron(env []string) {
	var values []string
	for _, kv := range env {
		name, value, ok := strings.Cut(kv, "=")
		if ok && SecretName(name) {
			values = append(values, value)
		}
	}
	Add(values...)
}

// Known reports whether v is a registered secret value.
func Known(v string) bool {
	reg.mu.RLock()
	defer reg.mu.RUnlock()
	return reg.known[strings.TrimSpace(v)]
}

// secretWords are the parts of a variable name that say it holds a credential.
var secretWords = []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL", "APIKEY"}

// secretComponents are the same, as whole components of a name split at "_" ("API_KEY",
// "GH_PAT"; not "MONKEY" or "PATH").
var secretComponents = []string{"KEY", "KEYS", "PAT"}

// SecretName reports whether a variable's name says it holds a credential: it contains TOKEN,
// SECRET, PASSWORD, PASSWD, PASSPHRASE, CREDENTIAL or APIKEY, or has a component KEY, KEYS or PAT
// (case-insensitive; "-" counts as "_", as in the runner's INPUT_JUDGE-API-KEY).
func SecretName(name string) bool {
	n := strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
	for _, w := range secretWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	for _, c := range strings.Split(n, "_") {
		if slices.Contains(secretComponents, c) {
			return true
		}
	}
	return false
}

func snapshot() ([]string, *strings.Replacer) {
	reg.mu.RLock()
	defer reg.mu.RUnlock()
	return reg.sorted, reg.rep
}

// String returns s with every secret value replaced by Mask.
func String(s string) string {
	_, rep := snapshot()
	if rep == nil {
		return s
	}
	return rep.Replace(s)
}

// Bytes returns b with every secret value replaced by Mask; b itself when it holds none.
func Bytes(b []byte) []byte {
	values, rep := snapshot()
	if rep == nil || !containsAny(b, values) {
		return b
	}
	return []byte(rep.Replace(string(b)))
}

func containsAny(b []byte, values []string) bool {
	for _, v := range values {
		if bytes.Contains(b, []byte(v)) {
			return true
		}
	}
	return false
}

// Writer redacts a stream: what is written reaches the underlying writer at once, with secret
// values replaced, except a tail that may be the start of a secret completed by the next write;
// Flush writes that tail.
type Writer struct {
	mu      sync.Mutex
	w       io.Writer
	pending []byte
}

// NewWriter returns a redacting writer over w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	values, rep := snapshot()
	if rep == nil && len(w.pending) == 0 {
		return w.w.Write(p)
	}
	w.pending = append(w.pending, p...)
	cut := safeCut(w.pending, values)
	if cut == 0 {
		return len(p), nil
	}
	_, err := w.w.Write(Bytes(w.pending[:cut]))
	w.pending = w.pending[:copy(w.pending, w.pending[cut:])]
	return len(p), err
}

// Flush writes what is held back.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.pending) == 0 {
		return nil
	}
	out := Bytes(w.pending)
	w.pending = w.pending[:0]
	_, err := w.w.Write(out)
	return err
}

// safeCut is how much of buf can be redacted and written now: all of it but the longest tail
// that begins a secret value, moved back to the start of any whole secret that crosses it.
func safeCut(buf []byte, values []string) int {
	cut := len(buf)
	for _, v := range values {
		for k := min(len(v)-1, len(buf)); k > len(buf)-cut; k-- {
			if bytes.HasSuffix(buf, []byte(v[:k])) {
				cut = len(buf) - k
				break
			}
		}
	}
	for moved := true; moved; {
		moved = false
		for _, v := range values {
			for i := max(0, cut-len(v)+1); i < cut; i++ {
				if bytes.HasPrefix(buf[i:], []byte(v)) {
					cut, moved = i, true
					break
				}
			}
		}
	}
	return cut
}
