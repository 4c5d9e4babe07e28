package spec

import (
	"bytes"
	"strings"
)

// loadOwned loads the tasks when Options.Owns picks which to load in full. The ids come first,
// cheaply: a task file's top-level `id:` and `enabled:` are read from its text (scanTaskID),
// or, when the text is not plain enough to be sure, from its parsed YAML. With every id known,
// Owns picks; the chosen files load in full, the others without schema validation or
// diagnostics. Files that hold no task (disabled, not a mapping, unreadable) and files whose
// decoding finds an error load in full, so every job reports their problems. If a decoded id differs from the one read first, the split
// Owns made is void: nil is returned and the caller loads every task in full.
func (l *loader) loadOwned(jobs []taskJob, csv []taskResult) []taskResult {
	type pre struct {
		data  []byte
		err   error
		id    string // "" when the file holds no task
		ready *taskResult
	}
	pres := parallelMap(len(jobs), func(i int) pre {
		j := jobs[i]
		if j.inline != nil { // part of eval.yaml, validated with it: always in full
			var r taskResult
			l.decodeTask(j.ctx, j.inline, "", &r)
			id := ""
			if r.task != nil {
				id = r.task.ID
			}
			return pre{id: id, ready: &r}
		}
		data, err := readSuiteFile(l.opts.Root, j.file)
		p := pre{data: data, err: err}
		if err == nil {
			p.id = fileIdentity(j.file, data)
		}
		return p
	})
	// The ids the tasks will have, duplicates renamed as loadTasks renames them.
	taken := map[string]bool{}
	final := make([]string, len(pres))
	var ids []string
	add := func(id string) string {
		if taken[id] {
			id = uniqueID(taken, id)
		}
		taken[id] = true
		ids = append(ids, id)
		return id
	}
	for i, p := range pres {
		if p.id != "" {
			final[i] = add(p.id)
		}
	}
	for _, r := range csv {
		if r.task != nil {
			add(r.task.ID)
		}
	}
	owns := l.opts.Owns(l.s.Name, ids)
	out := parallelMap(len(jobs), func(i int) taskResult {
		p := pres[i]
		switch {
		case p.ready != nil:
			return *p.ready
		case p.id == "" || owns(final[i]):
			return l.decodeTaskFile(jobs[i].file, p.data, p.err, true)
		}
		r := l.decodeTaskFile(jobs[i].file, p.data, p.err, false)
		if r.diags.HasErrors() {
			// Decoding itself failed (the YAML, an input path that leaves the workspace, a file
			// refused): the task could not be described safely, so this job reports it too.
			return l.decodeTaskFile(jobs[i].file, p.data, p.err, true)
		}
		r.diags = nil
		if r.task != nil {
			r.task.Unvalidated = true
		}
		return r
	})
	for i, r := range out {
		if pres[i].ready != nil {
			continue
		}
		got := ""
		if r.task != nil {
			got = r.task.ID
		}
		if got != pres[i].id {
			return nil
		}
	}
	return out
}

// fileIdentity is the id of the task a task file holds ("" when it holds none: disabled, or not
// a mapping), read from the text when scanTaskID can, else from the parsed YAML.
func fileIdentity(file string, data []byte) string {
	def := fileTaskID(file)
	if id, enabled, ok := scanTaskID(data, def); ok {
		if !enabled {
			return ""
		}
		return id
	}
	doc, _ := parseYAML(file, data)
	if !isMapping(doc.Root) {
		return ""
	}
	if enabled, ok := boolOf(get(doc.Root, "enabled")); ok && !enabled {
		return ""
	}
	id, _ := taskID(doc.Root, def)
	return id
}

// scanTaskID reads a task file's `id:` (defaultID without one) and `enabled:` from its text,
// without parsing the YAML. It only reads a top-level block mapping of plain keys whose id is
// a simple one-line scalar and whose enabled is true or false; anything else (flow style,
// anchors, merge keys, quoted or complex keys, documents markers, tabs, a line at column 0
// that is not `key:`, a repeated key) gives ok false, and the caller parses the file.
func scanTaskID(data []byte, defaultID string) (id string, enabled, ok bool) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	id, enabled = defaultID, true
	var keys, ids, enables int
	read := false // the last key was id or enabled: an indented line would continue its value
	for len(data) > 0 {
		var line []byte
		line, data, _ = bytes.Cut(data, []byte("\n"))
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(bytes.TrimSpace(line)) == 0 || line[0] == '#' {
			continue // blank or comment
		}
		if line[0] == ' ' {
			if read {
				return "", false, false // `id: a` + `  b` is the id "a b"
			}
			continue // inside the value of another key
		}
		key, value, found := bytes.Cut(line, []byte(":"))
		if !found || !plainKey(key) || (len(value) > 0 && value[0] != ' ') {
			return "", false, false
		}
		keys++
		v := strings.TrimSpace(stripComment(string(value)))
		read = string(key) == "id" || string(key) == "enabled"
		switch string(key) {
		case "id":
			ids++
			s, simple := simpleScalar(v)
			if !simple {
				return "", false, false
			}
			id = s
		case "enabled":
			enables++
			switch v {
			case "true":
				enabled = true
			case "false":
				enabled = false
			default:
				return "", false, false
			}
		}
	}
	if keys == 0 || ids > 1 || enables > 1 {
		return "", false, false
	}
	return id, enabled, true
}

func plainKey(k []byte) bool {
	if len(k) == 0 {
		return false
	}
	for _, c := range k {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return k[0] != '-'
}

// stripComment cuts a ` #` comment off a value (a `#` inside a quoted id makes the id not
// simple, so quotes need no care here).
func stripComment(v string) string {
	if i := strings.Index(v, " #"); i >= 0 {
		return v[:i]
	}
	return v
}

// simpleScalar is the string value of a one-line scalar made of letters, digits and `_.-/`,
// plain or quoted, that YAML reads as itself ("" or null is not simple).
func simpleScalar(v string) (string, bool) {
	if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
		v = v[1 : len(v)-1]
	} else {
		switch strings.ToLower(v) {
		case "null", "~":
			return "", false
		}
	}
	if v == "" {
		return "", false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
		if !letter && (i == 0 || c != '.' && c != '-' && c != '/') {
			return "", false
		}
	}
	return v, true
}
