package spec

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

// loadCSV reads tasks_from (docs/format.md#csv-datasets-tasks_from): a header row, then one task per row. Columns id, name
// and prompt make the task; every column (those three included) is a template variable, over the
// suite's inputs. CSV tasks get the top-level graders.
func (l *loader) loadCSV(ctx *fileCtx, root *yaml.Node) []taskResult {
	from := get(root, "tasks_from")
	rel, ok := stringOf(from)
	if !ok || rel == "" {
		return nil
	}
	at := ctx.pos(from)
	file := rel
	if !filepath.IsAbs(file) {
		file = filepath.Join(l.s.Dir, filepath.FromSlash(rel))
	}
	file = filepath.Clean(file)
	if r, err := filepath.Rel(l.s.Dir, file); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		l.add(Errorf(at, "tasks_from", "move the CSV into the suite folder "+l.s.Dir, "tasks_from %q escapes the suite folder", rel))
		return nil
	}
	data, err := readSuiteFile(l.s.Dir, file)
	if err != nil {
		l.add(Errorf(at, "tasks_from", orFix(RefusedFix(err), "check the path; it is relative to "+l.s.Dir), "cannot read tasks_from %q: %v", rel, unwrapPathError(err)))
		return nil
	}
	l.files[file] = true
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	rd := csv.NewReader(bytes.NewReader(data))
	rd.FieldsPerRecord = -1
	type row struct {
		fields []string
		line   int
		col    map[int]int
	}
	var rows []row
	for {
		rec, err := rd.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				l.add(Errorf(Pos{File: file, Line: pe.Line, Col: pe.Column}, "", "fix the quoting of this row", "invalid CSV: %v", pe.Err))
			} else {
				l.add(Errorf(Pos{File: file}, "", "", "invalid CSV: %v", err))
			}
			return nil
		}
		line, _ := rd.FieldPos(0)
		cols := map[int]int{}
		for i := range rec {
			_, c := rd.FieldPos(i)
			cols[i] = c
		}
		rows = append(rows, row{fields: rec, line: line, col: cols})
	}
	if len(rows) == 0 {
		l.add(Errorf(Pos{File: file, Line: 1, Col: 1}, "", "add a header row (id,name,prompt,…) and one row per task", "the CSV file is empty"))
		return nil
	}
	header := rows[0].fields
	index := map[string]int{}
	for i, h := range header {
		h = strings.TrimSpace(h)
		header[i] = h
		if _, dup := index[h]; dup {
			l.add(Errorf(Pos{File: file, Line: rows[0].line, Col: rows[0].col[i]}, "", "rename one of the columns", "column %q appears twice in the header", h))
			continue
		}
		index[h] = i
	}
	if _, ok := index["prompt"]; !ok {
		l.add(Errorf(Pos{File: file, Line: rows[0].line, Col: 1}, "", "add a `prompt` column", "the CSV header has no prompt column (columns: %s)", strings.Join(header, ", ")))
		return nil
	}
	dataRows := rows[1:]
	if len(dataRows) == 0 {
		l.add(Warnf(Pos{File: file, Line: rows[0].line, Col: 1}, "", "add one row per task below the header", "the CSV file has a header but no rows"))
	}
	start, end := 1, len(dataRows)
	if rn := get(root, "range"); isSequence(rn) && len(rn.Content) == 2 {
		s, ok1 := intOf(rn.Content[0])
		e, ok2 := intOf(rn.Content[1])
		if ok1 && ok2 && s >= 1 && e >= 1 {
			switch {
			case s > e:
				l.add(Errorf(ctx.pos(rn), "range", fmt.Sprintf("write it as [%d, %d]", e, s), "range start %d is after its end %d", s, e))
				return nil
			case s > len(dataRows):
				l.add(Errorf(ctx.pos(rn), "range", fmt.Sprintf("start at a row between 1 and %d", len(dataRows)),
					"range starts at row %d, but %s has %d data rows", s, filepath.Base(file), len(dataRows)))
				return nil
			}
			start, end = s, min(e, len(dataRows))
		}
	}
	ragged := map[int]bool{}
	for n, rw := range dataRows {
		if len(rw.fields) != len(header) {
			ragged[n+1] = true
			l.add(Errorf(Pos{File: file, Line: rw.line, Col: 1}, "", "give every row as many values as the header has columns",
				"row %d has %d columns, the header has %d", n+1, len(rw.fields), len(header)))
		}
	}
	var out []taskResult
	for n := start; n <= end; n++ {
		rw := dataRows[n-1]
		if ragged[n] {
			continue
		}
		value := func(col string) string {
			if i, ok := index[col]; ok {
				return rw.fields[i]
			}
			return ""
		}
		t := &Task{
			ID: value("id"), Name: value("name"), File: file, Dir: filepath.Dir(file),
			Pos: Pos{File: file, Line: rw.line, Col: 1}, TimeoutSeconds: l.s.Config.TimeoutSeconds, ContextDir: l.s.ContextDir,
			Vars: map[string]string{},
		}
		if t.ID == "" {
			t.ID = t.Name
		}
		if t.ID == "" {
			t.ID = fmt.Sprintf("row-%d", n)
		}
		if t.Name == "" {
			t.Name = t.ID
		}
		vars := make(map[string]string, len(l.s.Inputs)+len(header))
		for k, v := range l.s.Inputs {
			vars[k] = v
		}
		for i, h := range header {
			vars[h] = rw.fields[i]
			t.Vars[h] = rw.fields[i]
		}
		t.Graders = append([]*Grader(nil), l.s.Graders...)
		r := taskResult{task: t, idAt: t.Pos, idKey: fmt.Sprintf("%s row %d", filepath.Base(file), n)}
		prompt, err := renderPrompt(value("prompt"), templateData{Vars: vars, TaskName: t.Name, TaskID: t.ID}, t.ContextDir,
			func(f string) { r.files = append(r.files, f) })
		if err != nil {
			// As for task files: the row's prompt is sent as written, with a warning.
			pe := err.(*promptError)
			at := Pos{File: file, Line: rw.line, Col: rw.col[index["prompt"]]}
			if pe.refused {
				r.diags = append(r.diags, Errorf(at, "prompt", pe.fix, "row %d: %s", n, pe.msg))
			} else {
				r.diags = append(r.diags, Warnf(at, "prompt", pe.fix, "row %d: %s; the prompt is sent as written", n, pe.msg))
				prompt = value("prompt")
			}
		}
		t.Prompt = prompt
		out = append(out, r)
	}
	return out
}
