package spec

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
)

// Placeholders in Vally specs (docs/vally.md#placeholders). Real specs write environment
// placeholders where a value goes — `environment: ${ENVIRONMENT}`, `${VAR=default}` — some of
// them where YAML cannot parse them unsubstituted (inside a flow list). Vally's documentation does
// not say whether it substitutes them; a committed spec its users run must parse, so skillgate
// substitutes them in the file's text before parsing, from the environment or the default,
// and says so in a warning. Only a placeholder that is a whole value (plain or quoted) is
// replaced: text in prompts and block scalars, where `${HOME}` is usually shell, is left alone.

// vallyStimuliLine finds the top-level `stimuli:` key of a Vally spec.
var vallyStimuliLine = regexp.MustCompile(`(?m)^stimuli[ \t]*:`)

var placeholderRE = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-=])([^}\n]*))?\}`)

// blockOpener matches a line whose value starts a literal or folded block scalar.
var blockOpener = regexp.MustCompile(`(?:^|:[ \t]+|^[ \t]*-[ \t]+|^[ \t]*)[|>][1-9+-]*[ \t]*(?:#.*)?$`)

// plainSafe is a value that reads back as itself written as a plain scalar.
var plainSafe = regexp.MustCompile(`^[A-Za-z0-9_./@+~-][A-Za-z0-9_./@+~:=-]*$`)

// substitutePlaceholders replaces the whole-value placeholders of a file's text (see above).
func substitutePlaceholders(file string, data []byte) ([]byte, Diagnostics) {
	if !strings.Contains(string(data), "${") {
		return data, nil
	}
	var diags Diagnostics
	lines := strings.SplitAfter(string(data), "\n")
	inBlock, blockIndent := false, 0
	changed := false
	for i, line := range lines {
		body := strings.TrimRight(line, "\r\n")
		indent := len(body) - len(strings.TrimLeft(body, " \t"))
		if inBlock {
			if strings.TrimSpace(body) == "" || indent > blockIndent {
				continue
			}
			inBlock = false
		}
		if blockOpener.MatchString(body) && !strings.HasPrefix(strings.TrimSpace(body), "#") {
			inBlock, blockIndent = true, indent
		}
		if !strings.Contains(body, "${") {
			continue
		}
		out, ds := substituteLine(file, i+1, body)
		diags = append(diags, ds...)
		if out != body {
			lines[i] = out + line[len(body):]
			changed = true
		}
	}
	if !changed {
		return data, diags
	}
	return []byte(strings.Join(lines, "")), diags
}

// substituteLine replaces the whole-value placeholders of one line.
func substituteLine(file string, lineNo int, line string) (string, Diagnostics) {
	var diags Diagnostics
	var b strings.Builder
	last := 0
	for _, m := range placeholderRE.FindAllStringSubmatchIndex(line, -1) {
		start, end := m[0], m[1]
		quote := byte(0)
		if start > 0 && end < len(line) && (line[start-1] == '"' || line[start-1] == '\'') && line[end] == line[start-1] {
			quote = line[start-1]
		}
		before, after := line[:start], line[end:]
		if quote != 0 {
			before, after = line[:start-1], line[end+1:]
		}
		if !valueStart(before) || !valueEnd(after) {
			continue // part of a longer text: left as written
		}
		name := line[m[2]:m[3]]
		op, dflt := "", ""
		if m[4] >= 0 {
			op, dflt = line[m[4]:m[5]], line[m[6]:m[7]]
		}
		pos := Pos{File: file, Line: lineNo, Col: start + 1}
		value, set := os.LookupEnv(name)
		switch {
		case set && (value != "" || !strings.HasPrefix(op, ":")):
		case op != "":
			value = dflt
		default:
			diags = append(diags, Warnf(pos, "", "set "+name+" in the environment, or write a default: ${"+name+"=value}",
				"environment variable %s is not set: the placeholder ${%s} is left as written", name, name))
			continue
		}
		diags = append(diags, Warnf(pos, "", "",
			"placeholder ${%s} is replaced with %s before the spec is parsed (Vally's documentation does not say how it treats placeholders)",
			name, map[bool]string{true: "the environment variable's value", false: "its default"}[set && (value != "" || !strings.HasPrefix(op, ":"))]))
		b.WriteString(line[last:start])
		b.WriteString(renderValue(value, quote))
		last = end
	}
	if last == 0 {
		return line, diags
	}
	b.WriteString(line[last:])
	return b.String(), diags
}

// valueStart reports whether the text before a placeholder ends where a YAML value begins:
// after "key: ", "- ", or inside a flow collection.
func valueStart(before string) bool {
	t := strings.TrimRight(before, " \t")
	if t == "" {
		return false // a key, or a continuation line
	}
	spaced := len(t) < len(before)
	switch t[len(t)-1] {
	case ':':
		return spaced
	case '[', ',', '{':
		return true
	case '-':
		return spaced && strings.TrimSpace(t) == "-"
	}
	return false
}

// valueEnd reports whether the text after a placeholder ends the value.
func valueEnd(after string) bool {
	t := strings.TrimLeft(after, " \t")
	return t == "" || t[0] == '#' && len(t) < len(after) || t[0] == ',' || t[0] == ']' || t[0] == '}'
}

// renderValue writes a substituted value so YAML reads it back as written: plain when it can
// be, else double-quoted (or escaped for the quotes it stands in).
func renderValue(v string, quote byte) string {
	switch quote {
	case '\'':
		return strings.ReplaceAll(strings.ReplaceAll(v, "'", "''"), "\n", " ")
	case '"':
		q, _ := json.Marshal(v)
		return string(q[1 : len(q)-1])
	}
	if plainSafe.MatchString(v) {
		return v
	}
	q, _ := json.Marshal(v)
	return string(q)
}
