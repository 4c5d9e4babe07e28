package spec

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"text/template"
)

// Prompt templates (docs/format.md#prompt-templates): `{{name}}` and `{{.Vars.name}}` read the variables (suite
// inputs merged with a CSV row), `{{.TaskName}}` and `{{.TaskID}}` name the task, and
// `{{fixture:path}}` inlines a file from the task's context dir. They run on text/template with
// missingkey=error; the two short forms are rewritten into calls of the `var` and `fixture`
// functions first, so names may contain `-`.

var (
	shortVarRE       = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)
	missingKeyRE     = regexp.MustCompile(`map has no entry for key "([^"]*)"`)
	templateKeywords = map[string]bool{
		"if": true, "else": true, "end": true, "range": true, "with": true, "define": true,
		"template": true, "block": true, "break": true, "continue": true, "nil": true,
		"true": true, "false": true,
	}
)

// rewriteTemplate turns `{{name}}` into `{{var "name"}}` and `{{fixture:path}}` into
// `{{fixture "path"}}`, leaving every other action as written.
func rewriteTemplate(src string) string {
	if !strings.Contains(src, "{{") {
		return src
	}
	var b strings.Builder
	rest := src
	for {
		open := strings.Index(rest, "{{")
		if open < 0 {
			b.WriteString(rest)
			break
		}
		closing := strings.Index(rest[open+2:], "}}")
		if closing < 0 {
			b.WriteString(rest)
			break
		}
		b.WriteString(rest[:open])
		inner := rest[open+2 : open+2+closing]
		rest = rest[open+2+closing+2:]
		left, right := "", ""
		core := inner
		if strings.HasPrefix(core, "- ") {
			left, core = "- ", core[2:]
		}
		if strings.HasSuffix(core, " -") {
			right, core = " -", core[:len(core)-2]
		}
		trimmed := strings.TrimSpace(core)
		switch {
		case strings.HasPrefix(trimmed, "fixture:"):
			p := strings.TrimSpace(strings.TrimPrefix(trimmed, "fixture:"))
			b.WriteString("{{" + left + "fixture " + strconv.Quote(p) + right + "}}")
		case shortVarRE.MatchString(trimmed) && !templateKeywords[trimmed]:
			b.WriteString("{{" + left + "var " + strconv.Quote(trimmed) + right + "}}")
		default:
			b.WriteString("{{" + inner + "}}")
		}
	}
	return b.String()
}

// templateData is what `.` holds in a prompt template.
type templateData struct {
	Vars     map[string]string
	TaskName string
	TaskID   string
}

// promptError is a template problem worded for the user.
// promptError is a prompt that cannot be rendered. refused marks a fixture that leaves its
// folder or is no regular file: an error, never sent as written (docs/limits.md).
type promptError struct {
	msg, fix string
	refused  bool
}

func (e *promptError) Error() string { return e.msg }

// renderPrompt renders a prompt template. Prompts without `{{` are returned verbatim. read is
// called with the absolute path of each fixture file inlined.
func renderPrompt(src string, data templateData, contextDir string, read func(string)) (string, error) {
	if !strings.Contains(src, "{{") {
		return src, nil
	}
	var first *promptError
	fail := func(msg, fix string) error {
		if first == nil {
			first = &promptError{msg: msg, fix: fix}
		}
		return first
	}
	defined := sortedKeys(data.Vars)
	if out, ok, err := renderSimple(src, data, contextDir, read, defined); ok {
		return out, err
	}
	funcs := template.FuncMap{
		"var": func(name string) (string, error) {
			v, ok := data.Vars[name]
			if !ok {
				pe := missingVar(name, defined)
				return "", fail(pe.msg, pe.fix)
			}
			return v, nil
		},
		"fixture": func(p string) (string, error) {
			text, pe := readFixture(p, contextDir, read)
			if pe != nil {
				return "", fail(pe.msg, pe.fix)
			}
			return text, nil
		},
	}
	t, err := template.New("prompt").Option("missingkey=error").Funcs(funcs).Parse(rewriteTemplate(src))
	if err != nil {
		return "", &promptError{"the prompt is not a valid template: " + strings.TrimPrefix(err.Error(), "template: "),
			"close every {{ with }}; write a literal {{ as {{\"{{\"}}", false}
	}
	var b strings.Builder
	if err := t.Execute(&b, data); err != nil {
		if first != nil {
			return "", first
		}
		if m := missingKeyRE.FindStringSubmatch(err.Error()); m != nil {
			return "", missingVar(m[1], defined)
		}
		var ee template.ExecError
		msg := err.Error()
		if errors.As(err, &ee) {
			msg = ee.Err.Error()
		}
		return "", &promptError{"the prompt template failed: " + strings.TrimPrefix(msg, "template: "),
			"use {{name}}, {{.Vars.name}}, {{.TaskName}}, {{.TaskID}} or {{fixture:path}}", false}
	}
	return b.String(), nil
}

// forceTemplateEngine disables the direct substitution (the fuzz test compares both ways).
var forceTemplateEngine = false

var goIdentRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// renderSimple substitutes prompts whose actions are all plain references ({{name}},
// {{.Vars.name}}, {{.TaskName}}, {{.TaskID}}, {{fixture:path}}) without text/template, which
// costs more than the rest of loading a task. ok is false when the prompt needs the engine.
func renderSimple(src string, data templateData, contextDir string, read func(string), defined []string) (out string, ok bool, err error) {
	if forceTemplateEngine {
		return "", false, nil
	}
	// First check every action, as the engine parses the whole template before running it.
	type action struct{ text, core string }
	var parts []action
	rest := src
	for {
		open := strings.Index(rest, "{{")
		if open < 0 {
			parts = append(parts, action{text: rest})
			break
		}
		closing := strings.Index(rest[open+2:], "}}")
		if closing < 0 {
			return "", false, nil
		}
		inner := rest[open+2 : open+2+closing]
		if strings.HasPrefix(inner, "-") || strings.HasSuffix(inner, "-") {
			return "", false, nil // trim markers: let the engine handle whitespace
		}
		core := strings.TrimSpace(inner)
		simple := strings.HasPrefix(core, "fixture:") || core == ".TaskName" || core == ".TaskID" ||
			(strings.HasPrefix(core, ".Vars.") && goIdentRE.MatchString(core[len(".Vars."):])) ||
			(shortVarRE.MatchString(core) && !templateKeywords[core])
		if !simple {
			return "", false, nil
		}
		parts = append(parts, action{text: rest[:open], core: core})
		rest = rest[open+2+closing+2:]
	}
	var b strings.Builder
	var fixtures []string
	for _, p := range parts {
		b.WriteString(p.text)
		switch core := p.core; {
		case core == "":
		case strings.HasPrefix(core, "fixture:"):
			text, pe := readFixture(strings.TrimSpace(strings.TrimPrefix(core, "fixture:")), contextDir, func(f string) { fixtures = append(fixtures, f) })
			if pe != nil {
				return "", true, pe
			}
			b.WriteString(text)
		case core == ".TaskName":
			b.WriteString(data.TaskName)
		case core == ".TaskID":
			b.WriteString(data.TaskID)
		default:
			name := strings.TrimPrefix(core, ".Vars.")
			v, found := data.Vars[name]
			if !found {
				return "", true, missingVar(name, defined)
			}
			b.WriteString(v)
		}
	}
	for _, f := range fixtures {
		read(f)
	}
	return b.String(), true, nil
}

// readFixture reads a {{fixture:path}} file from the context dir.
func readFixture(p, contextDir string, read func(string)) (string, *promptError) {
	clean := path.Clean(filepath.ToSlash(p))
	if p == "" || filepath.IsAbs(p) || path.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") {
		return "", &promptError{fmt.Sprintf("fixture path %q must be relative and stay inside the context dir", p), "name a file below " + contextDir, true}
	}
	full := filepath.Join(contextDir, filepath.FromSlash(clean))
	text, err := readSuiteFile(contextDir, full)
	if fix := RefusedFix(err); fix != "" {
		return "", &promptError{fmt.Sprintf("fixture %q refused: %v", p, err), fix, true}
	}
	if err != nil {
		return "", &promptError{fmt.Sprintf("fixture %q not found in the context dir %s", p, contextDir),
			"create the file there, or set context_dir / --context-dir", false}
	}
	read(full)
	return string(text), nil
}

func missingVar(name string, defined []string) *promptError {
	return &promptError{fmt.Sprintf("template variable %q is not defined", name), varFix(name, defined), false}
}

func varFix(name string, defined []string) string {
	fix := "define it under the suite's `inputs:` (or as a CSV column)"
	if s := suggest(name, defined); s != "" {
		return "did you mean `" + s + "`? " + fix
	}
	if len(defined) > 0 {
		fix += "; defined: " + strings.Join(defined, ", ")
	}
	return fix
}
