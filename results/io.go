package results

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"

	"github.com/skillgate/skillgate/internal/atomicfile"
	"github.com/skillgate/skillgate/internal/redact"
)

// ReadError is a results file that cannot be used; Offset is the byte offset of a JSON error.
type ReadError struct {
	Path   string
	Offset int64
	Msg    string
}

func (e *ReadError) Error() string {
	if e.Offset > 0 {
		return fmt.Sprintf("%s: byte %d: %s", e.Path, e.Offset, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Path, e.Msg)
}

// Decode parses results JSON; name is used in errors.
func Decode(data []byte, name string) (*SuiteResult, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, &ReadError{Path: name, Msg: "empty file, not a results file"}
	}
	if trimmed[0] != '{' {
		return nil, &ReadError{Path: name, Offset: 1, Msg: "not a results file: expected a JSON object"}
	}
	// One decode: the embedded SuiteResult's schema_version is shadowed by the probe, which
	// tells a waza file (absent) from a skillgate file.
	var file struct {
		*SuiteResult
		SchemaVersion *int `json:"schema_version"`
	}
	file.SuiteResult = &SuiteResult{}
	if err := json.Unmarshal(data, &file); err != nil {
		if v := probeVersion(data); v > SchemaVersion {
			return nil, newerVersion(name, v)
		}
		// A number beyond float64 or int64 (1e999) fails the whole decode: read it as the
		// largest value its field can hold instead, and let the clamps bring it into range.
		if fixed, n := boundNumbers(data); n > 0 {
			file.SuiteResult = &SuiteResult{}
			if json.Unmarshal(fixed, &file) == nil {
				file.SuiteResult.ReadWarnings = append(file.SuiteResult.ReadWarnings,
					fmt.Sprintf("%d number(s) beyond the range of a 64-bit number read as the largest one", n))
				return finishDecode(file.SuiteResult, file.SchemaVersion, name)
			}
		}
		return nil, jsonError(name, data, err)
	}
	return finishDecode(file.SuiteResult, file.SchemaVersion, name)
}

// finishDecode checks a decoded file and derives what readers rely on. version is the file's
// schema_version, nil for a waza file.
func finishDecode(s *SuiteResult, version *int, name string) (*SuiteResult, error) {
	if version != nil {
		switch v := *version; {
		case v > SchemaVersion:
			return nil, newerVersion(name, v)
		case v < 1:
			return nil, &ReadError{Path: name, Msg: fmt.Sprintf("unknown schema_version %d", v)}
		}
		s.SchemaVersion = *version
	}
	if s.EvalName == "" && s.Tasks == nil {
		return nil, &ReadError{Path: name, Msg: "not a results file: missing eval_name and tasks"}
	}
	if s.Metrics == nil {
		s.Metrics = map[string]*MetricResult{}
	}
	dropNulls(s)
	restoreShared(s)
	restoreShared(s.BaselineOutcome)
	clampFigures(s)
	if version == nil {
		normalizeWaza(s)
	} else {
		refreshFigures(s)
	}
	return s, nil
}

// dropNulls removes null tasks and runs (a hand-edited or truncated-and-repaired file), which
// carry nothing to report and would otherwise reach every reader as nil pointers.
func dropNulls(s *SuiteResult) {
	for _, side := range []*SuiteResult{s, s.BaselineOutcome} {
		if side == nil {
			continue
		}
		side.Tasks = slices.DeleteFunc(side.Tasks, func(t *TaskResult) bool { return t == nil })
		for _, t := range side.Tasks {
			t.Runs = slices.DeleteFunc(t.Runs, func(r *RunResult) bool { return r == nil })
			t.Confirmations = slices.DeleteFunc(t.Confirmations, func(r *RunResult) bool { return r == nil })
		}
		side.TriggerConfirmations = slices.DeleteFunc(side.TriggerConfirmations, func(tr *TriggerResult) bool { return tr == nil })
	}
}

// refreshFigures recomputes what a reader must be able to trust, so every report reads the
// figures of the current definitions (docs/results.md#summary) whatever wrote the file: a
// task's statistics when they are missing or not finite, and the summary.
func refreshFigures(s *SuiteResult) {
	for _, side := range []*SuiteResult{s, s.BaselineOutcome} {
		if side == nil {
			continue
		}
		for _, t := range side.Tasks {
			if t != nil && len(t.Runs) > 0 && !t.Stats.finite() {
				t.Stats = ComputeTaskStats(t.Runs)
			}
		}
		Summarize(side)
	}
}

func newerVersion(name string, v int) error {
	return &ReadError{Path: name, Msg: fmt.Sprintf("schema_version %d is newer than this skillgate reads (%d); upgrade skillgate", v, SchemaVersion)}
}

// probeVersion reads only schema_version, for files the full model cannot decode.
func probeVersion(data []byte) int {
	var probe struct {
		SchemaVersion int `json:"schema_version"`
	}
	json.Unmarshal(data, &probe)
	return probe.SchemaVersion
}

func jsonError(name string, data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn) && strings.Contains(syn.Error(), "unexpected end of JSON input"):
		return &ReadError{Path: name, Offset: syn.Offset, Msg: "truncated JSON (unexpected end of file)"}
	case errors.As(err, &syn):
		return &ReadError{Path: name, Offset: syn.Offset, Msg: "invalid JSON: " + syn.Error()}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return &ReadError{Path: name, Offset: int64(len(data)), Msg: "truncated JSON (unexpected end of file)"}
	case errors.As(err, &typ):
		return &ReadError{Path: name, Offset: typ.Offset, Msg: fmt.Sprintf("field %q: expected %s, got JSON %s", typ.Field, typ.Type, typ.Value)}
	}
	return &ReadError{Path: name, Msg: err.Error()}
}

// normalizeWaza converts a waza results file to skillgate's reading of it.
func normalizeWaza(s *SuiteResult) {
	finishWaza(s)
	if s.BaselineOutcome != nil {
		finishWaza(s.BaselineOutcome)
	}
	for _, tr := range s.TriggerResults {
		tr.Transcript = NormalizeTranscript(tr.Transcript)
	}
}

// finishWaza recomputes one side of a waza file: each task's statuses and statistics, the
// summary and the gate.
func finishWaza(s *SuiteResult) {
	for _, t := range s.Tasks {
		finishWazaTask(t, s.Config.TaskPassThreshold)
	}
	Summarize(s)
	s.Gate = ComputeGate(s)
}

// finishWazaTask recomputes a waza task's runs, status and statistics.
func finishWazaTask(t *TaskResult, threshold float64) {
	for _, r := range t.Runs {
		r.Transcript = NormalizeTranscript(r.Transcript)
		if r.Attempts == 0 {
			r.Attempts = 1
		}
	}
	t.FinishAt(threshold)
}

// WriteFile writes results JSON, compact, atomically (a temporary file renamed into place), so
// a reader never sees a half-written file and an interrupted write never destroys the previous
// one.
func WriteFile(path string, s *SuiteResult) error {
	return WriteFileAs(path, s, false)
}

// WriteFileAs is WriteFile, indented when pretty (the CLI's --pretty). Secret values are
// redacted (internal/redact).
func WriteFileAs(path string, s *SuiteResult, pretty bool) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		rw := redact.NewWriter(w)
		bw := bufio.NewWriterSize(rw, 64<<10) // the redactor looks at large blocks, not each token
		if err := encode(bw, s, pretty); err != nil {
			return err
		}
		if err := bw.Flush(); err != nil {
			return err
		}
		return rw.Flush()
	})
}

// Marshal encodes results as compact JSON with a trailing newline.
func Marshal(s *SuiteResult) ([]byte, error) {
	var buf bytes.Buffer
	if err := Encode(&buf, s); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Encode writes results as compact JSON. Tasks are encoded one at a time, so a results file of
// any size never needs one buffer holding all of it. Grader details that every run of a grader
// repeats are written once (grader_details, shared.go).
func Encode(w io.Writer, s *SuiteResult) error { return encode(w, s, false) }

// EncodeIndent is Encode with two-space indentation.
func EncodeIndent(w io.Writer, s *SuiteResult) error { return encode(w, s, true) }

func encode(w io.Writer, s *SuiteResult, pretty bool) error {
	if s.SchemaVersion == 0 {
		s.SchemaVersion = SchemaVersion
	}
	shell := *s
	shell.Tasks = nil
	shell.SharedDetails = sharedDetailsOf(s)
	if b := s.BaselineOutcome; b != nil {
		base := *b
		base.SharedDetails = sharedDetails(b.Tasks)
		base.Tasks = make([]*TaskResult, len(b.Tasks))
		for i, t := range b.Tasks {
			base.Tasks[i] = withoutShared(t, base.SharedDetails)
		}
		shell.BaselineOutcome = &base
	}
	var head []byte
	var err error
	placeholder, open := []byte(`"tasks":null`), `"tasks":[`
	if pretty {
		head, err = marshalIndent(&shell, "")
		placeholder, open = []byte("\n  \"tasks\": null"), "\n  \"tasks\": ["
	} else {
		head, err = marshalCompact(&shell)
	}
	if err != nil {
		return fmt.Errorf("encoding results: %w", err)
	}
	cut := bytes.Index(head, placeholder)
	if cut < 0 {
		return fmt.Errorf("encoding results: tasks key not found")
	}
	bw := bufio.NewWriterSize(w, 256<<10)
	bw.Write(head[:cut])
	bw.WriteString(open)
	if err := encodeTasks(bw, s, shell.SharedDetails, pretty); err != nil {
		return err
	}
	if (len(s.Tasks) > 0 || s.TaskCount() > 0) && pretty {
		bw.WriteString("\n  ")
	}
	bw.WriteString("]")
	bw.Write(head[cut+len(placeholder):]) // "," and the keys after tasks, or "}"
	return bw.Flush()
}

// encodeTasks writes the tasks array's elements, encoding batches of tasks on every CPU while
// keeping their order and a bounded number of encoded batches in memory.
func encodeTasks(w io.Writer, s *SuiteResult, shared map[string]map[string]any, pretty bool) error {
	const batch = 32
	type encoded struct {
		data []byte
		err  error
	}
	workers := runtime.GOMAXPROCS(0)
	order := make(chan chan encoded, workers)
	sem := make(chan struct{}, workers)
	var readErr error
	go func() {
		defer close(order)
		start := 0
		part := make([]*TaskResult, 0, batch)
		flush := func() {
			part, first := part, start == 0
			start += len(part)
			done := make(chan encoded, 1)
			order <- done
			sem <- struct{}{}
			go func() {
				defer func() { <-sem }()
				// One compact encoding buffer per batch, indented into the batch's output when
				// pretty: the same bytes as an indenting encoder, without a fresh pair of buffers
				// per task.
				var buf, compact bytes.Buffer
				enc := json.NewEncoder(&compact)
				enc.SetEscapeHTML(false)
				for i, t := range part {
					if i > 0 || !first {
						buf.WriteByte(',')
					}
					compact.Reset()
					if err := enc.Encode(withoutShared(t, shared)); err != nil {
						done <- encoded{err: fmt.Errorf("encoding results: task %s: %w", t.ID, err)}
						return
					}
					out := bytes.TrimRight(compact.Bytes(), "\n")
					if !pretty {
						buf.Write(out)
						continue
					}
					buf.WriteString("\n    ")
					if err := json.Indent(&buf, out, "    ", "  "); err != nil {
						done <- encoded{err: fmt.Errorf("encoding results: task %s: %w", t.ID, err)}
						return
					}
				}
				done <- encoded{data: buf.Bytes()}
			}()
		}
		add := func(t *TaskResult) error {
			part = append(part, t)
			if len(part) == batch {
				flush()
				part = make([]*TaskResult, 0, batch)
			}
			return nil
		}
		if s.file == nil {
			for _, t := range s.Tasks {
				add(t)
			}
		} else {
			// A suite OpenFile did not hold is read from its file again; on an error the file
			// is not written.
			readErr = s.EachTask(add)
		}
		if len(part) > 0 {
			flush()
		}
	}()
	var firstErr error
	for done := range order {
		e := <-done
		if e.err != nil && firstErr == nil {
			firstErr = e.err
		}
		if firstErr == nil {
			if _, err := w.Write(e.data); err != nil {
				firstErr = err
			}
		}
	}
	if readErr != nil {
		return fmt.Errorf("encoding results: %w", readErr)
	}
	return firstErr
}

func marshalCompact(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func marshalIndent(v any, prefix string) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent(prefix, "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
