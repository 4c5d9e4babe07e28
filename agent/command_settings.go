package agent

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

const commandExecutorName = "command"

// commandSettings is `config.command`: how to run any agent CLI and how to read its output.
type commandSettings struct {
	Argv         []string
	PromptVia    string // arg | stdin
	Output       string // jsonl | json | text
	VersionArgv  []string
	SkillsDir    string
	RequireFinal bool
	Rules        []*mapRule
}

// Kinds of normalized entries a mapping rule emits.
const (
	emitMessage    = "message"
	emitToolCall   = "tool_call"
	emitToolResult = "tool_result"
	emitSkill      = "skill_invocation"
	emitError      = "error"
	emitFinal      = "final"
	emitNone       = "none"
)

var emitKinds = []string{emitMessage, emitToolCall, emitToolResult, emitSkill, emitError, emitFinal, emitNone}

// emitFields lists, per kind, the fields a rule may map and which are required.
var emitFields = map[string]struct{ allowed, required []string }{
	emitMessage:    {[]string{"role", "content"}, []string{"content"}},
	emitToolCall:   {[]string{"id", "name", "arguments", "result", "success", "skill"}, []string{"name"}},
	emitToolResult: {[]string{"id", "name", "result", "success"}, nil},
	emitSkill:      {[]string{"name", "path"}, []string{"name"}},
	emitError:      {[]string{"message"}, []string{"message"}},
	emitFinal:      {[]string{"content"}, []string{"content"}},
	emitNone:       {nil, nil},
}

// Keys every rule may have besides its kind's fields.
var ruleCommonKeys = []string{"when", "emit", "session_id", "usage", "usage_mode", "fatal"}

// eachRuleKeys are the keys of a rule that maps the elements of a list (each) with rules of its
// own, instead of emitting one entry.
var eachRuleKeys = []string{"when", "each", "rules", "session_id", "usage", "usage_mode"}

var usageKeys = []string{"input_tokens", "uncached_input_tokens", "output_tokens", "cache_read_tokens",
	"cache_write_tokens", "reasoning_tokens", "cost_usd", "turns"}

var commandKeys = []string{"argv", "prompt_via", "output", "map", "version_argv", "skills_dir", "require_final"}

// mapRule maps agent events matching `when` to one normalized entry, or, with each, every
// element of the list at that path to the entry of the first of rules it matches.
type mapRule struct {
	label     string // "map.rules[2]", for messages
	when      []condition
	each      jsonPath
	rules     []*mapRule
	emit      string
	fields    map[string]*fieldSpec
	sessionID *fieldSpec
	usage     map[string]*fieldSpec
	usageAdd  bool
	fatal     bool
}

// condition holds when the value at path equals one of values.
type condition struct {
	path   jsonPath
	values []any
}

// fieldSpec says where a field's value comes from: a path in the event, or a constant; with
// equals, the field is true when the value at path is one of those.
type fieldSpec struct {
	path     jsonPath
	constant any
	isConst  bool
	equals   []any
}

// parseCommandSettings reads Options.Settings["command"] (YAML decoded into maps and lists).
// Every error says which key is wrong and how.
func parseCommandSettings(settings map[string]any) (*commandSettings, error) {
	raw, ok := settings["command"]
	if !ok || raw == nil {
		return nil, fmt.Errorf("command: the command executor needs config.command with at least argv (the agent's command line) and a map from its output to the run")
	}
	m, ok := raw.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("command: expected a mapping, got %s", describe(raw))
	}
	if err := onlyKeys("command", m, commandKeys); err != nil {
		return nil, err
	}
	cs := &commandSettings{PromptVia: "arg", Output: "jsonl"}
	var err error
	if cs.Argv, err = stringList("command.argv", m["argv"]); err != nil {
		return nil, err
	}
	if len(cs.Argv) == 0 || cs.Argv[0] == "" {
		return nil, fmt.Errorf("command.argv: give the agent's command line as a list, program first, e.g. [my-agent, --json]")
	}
	if v, ok := m["prompt_via"]; ok {
		if cs.PromptVia, err = enumValue("command.prompt_via", v, "arg", "stdin"); err != nil {
			return nil, err
		}
	}
	if v, ok := m["output"]; ok {
		if cs.Output, err = enumValue("command.output", v, "jsonl", "json", "text"); err != nil {
			return nil, err
		}
	}
	placeholders := 0
	for _, a := range cs.Argv {
		placeholders += strings.Count(a, "{prompt}")
	}
	if placeholders > 0 && cs.PromptVia == "stdin" {
		return nil, fmt.Errorf("command.argv: contains {prompt} but command.prompt_via is stdin; remove one of them")
	}
	if v, ok := m["version_argv"]; ok {
		if cs.VersionArgv, err = stringList("command.version_argv", v); err != nil {
			return nil, err
		}
		if len(cs.VersionArgv) == 0 {
			return nil, fmt.Errorf("command.version_argv: give the command printing the agent's version, e.g. [my-agent, --version]")
		}
	}
	if v, ok := m["skills_dir"]; ok {
		s, isString := v.(string)
		if !isString {
			return nil, fmt.Errorf("command.skills_dir: expected a string, got %s", describe(v))
		}
		if err := checkSkillsDir(s); err != nil {
			return nil, fmt.Errorf("command.skills_dir: %w", err)
		}
		cs.SkillsDir = s
	}
	if v, ok := m["require_final"]; ok {
		b, isBool := v.(bool)
		if !isBool {
			return nil, fmt.Errorf("command.require_final: expected true or false, got %s", describe(v))
		}
		cs.RequireFinal = b
	}
	mapping, hasMap := m["map"]
	switch {
	case cs.Output == "text" && hasMap:
		return nil, fmt.Errorf("command.map: output text has no events to map; remove map or use output jsonl or json")
	case cs.Output != "text" && !hasMap:
		return nil, fmt.Errorf("command.map: output %s needs a map from the agent's events to the run (rules: [{when: …, emit: …}])", cs.Output)
	case cs.Output == "text" && cs.RequireFinal:
		return nil, fmt.Errorf("command.require_final: output text has no final event; remove require_final")
	}
	if hasMap {
		if cs.Rules, err = parseMap(mapping); err != nil {
			return nil, err
		}
	}
	return cs, nil
}

func parseMap(raw any) ([]*mapRule, error) {
	m, ok := raw.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("command.map: expected a mapping with rules, got %s", describe(raw))
	}
	if err := onlyKeys("command.map", m, []string{"rules"}); err != nil {
		return nil, err
	}
	list, ok := m["rules"].([]any)
	if !ok || len(list) == 0 {
		return nil, fmt.Errorf("command.map.rules: expected a non-empty list of rules, got %s", describe(m["rules"]))
	}
	return parseRules("command.map.rules", list, true)
}

// parseRules reads a list of rules; top is false for the rules of an each rule, which cannot
// have each rules of their own.
func parseRules(label string, list []any, top bool) ([]*mapRule, error) {
	rules := make([]*mapRule, 0, len(list))
	for i, item := range list {
		r, err := parseRule(fmt.Sprintf("%s[%d]", label, i), item, top)
		if err != nil {
			return nil, err
		}
		rules = append(rules, r)
	}
	return rules, nil
}

func parseRule(label string, raw any, top bool) (*mapRule, error) {
	m, ok := raw.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: expected a mapping (when, emit and fields), got %s", label, describe(raw))
	}
	r := &mapRule{label: label, fields: map[string]*fieldSpec{}}
	if _, ok := m["each"]; ok {
		if !top {
			return nil, fmt.Errorf("%s.each: the rules of an each rule cannot have each rules of their own", label)
		}
		return parseEachRule(label, m, r)
	}
	if _, ok := m["rules"]; ok {
		return nil, fmt.Errorf("%s.rules: rules go with each (the path of a list whose elements they map)", label)
	}
	kind, err := enumValue(label+".emit", m["emit"], emitKinds...)
	if err != nil {
		return nil, err
	}
	r.emit = kind
	spec := emitFields[kind]
	if err := onlyKeys(label, m, append(append([]string{}, ruleCommonKeys...), spec.allowed...)); err != nil {
		return nil, fmt.Errorf("%w (emit %s takes: %s)", err, kind, strings.Join(spec.allowed, ", "))
	}
	if w, ok := m["when"]; ok {
		if r.when, err = parseWhen(label+".when", w); err != nil {
			return nil, err
		}
	}
	for _, f := range spec.allowed {
		v, ok := m[f]
		if !ok {
			continue
		}
		fs, err := parseField(label+"."+f, v)
		if err != nil {
			return nil, err
		}
		r.fields[f] = fs
	}
	for _, f := range spec.required {
		if r.fields[f] == nil {
			return nil, fmt.Errorf("%s: emit %s needs %s (a path into the event, e.g. %s: text)", label, kind, f, f)
		}
	}
	if err := parseEventFields(label, m, r); err != nil {
		return nil, err
	}
	if v, ok := m["fatal"]; ok {
		b, isBool := v.(bool)
		if !isBool {
			return nil, fmt.Errorf("%s.fatal: expected true or false, got %s", label, describe(v))
		}
		if kind != emitError {
			return nil, fmt.Errorf("%s.fatal: only an error rule can be fatal (this rule emits %s)", label, kind)
		}
		r.fatal = b
	}
	return r, nil
}

// parseEachRule reads a rule mapping every element of the list at `each` with its own rules
// (first match wins, paths relative to the element); its session_id and usage read the event.
func parseEachRule(label string, m map[string]any, r *mapRule) (*mapRule, error) {
	if err := onlyKeys(label, m, eachRuleKeys); err != nil {
		return nil, fmt.Errorf("%w (a rule with each maps the list's elements with its rules, and emits nothing itself)", err)
	}
	path, ok := m["each"].(string)
	if !ok {
		return nil, fmt.Errorf("%s.each: expected the path of a list in the event, e.g. message.content, got %s", label, describe(m["each"]))
	}
	var err error
	if r.each, err = parsePath(path); err != nil {
		return nil, fmt.Errorf("%s.each: path %q: %w", label, path, err)
	}
	list, ok := m["rules"].([]any)
	if !ok || len(list) == 0 {
		return nil, fmt.Errorf("%s.rules: expected a non-empty list of rules for the elements of %s, got %s", label, path, describe(m["rules"]))
	}
	if r.rules, err = parseRules(label+".rules", list, false); err != nil {
		return nil, err
	}
	if w, ok := m["when"]; ok {
		if r.when, err = parseWhen(label+".when", w); err != nil {
			return nil, err
		}
	}
	r.emit = emitNone
	if err := parseEventFields(label, m, r); err != nil {
		return nil, err
	}
	return r, nil
}

// parseEventFields reads what any rule may take from the event: session_id and usage.
func parseEventFields(label string, m map[string]any, r *mapRule) error {
	var err error
	if v, ok := m["session_id"]; ok {
		if r.sessionID, err = parseField(label+".session_id", v); err != nil {
			return err
		}
	}
	if v, ok := m["usage"]; ok {
		um, isMap := v.(map[string]any)
		if !isMap {
			return fmt.Errorf("%s.usage: expected a mapping of usage fields to paths, got %s", label, describe(v))
		}
		if err := onlyKeys(label+".usage", um, usageKeys); err != nil {
			return err
		}
		if um["input_tokens"] != nil && um["uncached_input_tokens"] != nil {
			return fmt.Errorf("%s.usage: input_tokens and uncached_input_tokens both set; map input_tokens when the agent's input figure counts cached tokens, uncached_input_tokens when it leaves them out", label)
		}
		r.usage = map[string]*fieldSpec{}
		for _, k := range sortedKeys(um) {
			if r.usage[k], err = parseField(label+".usage."+k, um[k]); err != nil {
				return err
			}
		}
	}
	if v, ok := m["usage_mode"]; ok {
		mode, err := enumValue(label+".usage_mode", v, "replace", "add")
		if err != nil {
			return err
		}
		if r.usage == nil {
			return fmt.Errorf("%s.usage_mode: set without usage", label)
		}
		r.usageAdd = mode == "add"
	}
	return nil
}

func parseWhen(label string, raw any) ([]condition, error) {
	m, ok := raw.(map[string]any)
	if !ok || len(m) == 0 {
		return nil, fmt.Errorf("%s: expected a mapping of paths to the values they must have, e.g. {type: tool_use}, got %s", label, describe(raw))
	}
	var conds []condition
	for _, k := range sortedKeys(m) {
		p, err := parsePath(k)
		if err != nil {
			return nil, fmt.Errorf("%s: path %q: %w", label, k, err)
		}
		values, err := scalarList(fmt.Sprintf("%s.%s", label, k), m[k])
		if err != nil {
			return nil, err
		}
		conds = append(conds, condition{path: p, values: values})
	}
	return conds, nil
}

// parseField reads a field spec: a path string, {path: p}, {path: p, equals: v|[v…]} or
// {const: v}.
func parseField(label string, raw any) (*fieldSpec, error) {
	switch v := raw.(type) {
	case string:
		p, err := parsePath(v)
		if err != nil {
			return nil, fmt.Errorf("%s: path %q: %w", label, v, err)
		}
		return &fieldSpec{path: p}, nil
	case map[string]any:
		if c, ok := v["const"]; ok {
			if len(v) != 1 {
				return nil, fmt.Errorf("%s: const cannot be combined with other keys", label)
			}
			return &fieldSpec{constant: normalizeScalar(c), isConst: true}, nil
		}
		if err := onlyKeys(label, v, []string{"path", "equals"}); err != nil {
			return nil, err
		}
		ps, ok := v["path"].(string)
		if !ok {
			return nil, fmt.Errorf("%s: expected path (a string) or const, got %s", label, describe(v["path"]))
		}
		p, err := parsePath(ps)
		if err != nil {
			return nil, fmt.Errorf("%s.path: %q: %w", label, ps, err)
		}
		fs := &fieldSpec{path: p}
		if eq, ok := v["equals"]; ok {
			if fs.equals, err = scalarList(label+".equals", eq); err != nil {
				return nil, err
			}
		}
		return fs, nil
	}
	return nil, fmt.Errorf("%s: expected a path string, {path: …, equals: …} or {const: …}, got %s", label, describe(raw))
}

// jsonPath is a parsed path: object keys and array indexes.
type jsonPath []pathStep

type pathStep struct {
	key   string
	index int // used when key == "" and isIndex
	isIdx bool
}

// parsePath reads `a.b[0].c`; `$` (or a leading `$.`) is the whole event.
func parsePath(s string) (jsonPath, error) {
	s = strings.TrimSpace(s)
	if s == "$" {
		return jsonPath{}, nil
	}
	s = strings.TrimPrefix(s, "$.")
	if s == "" {
		return nil, fmt.Errorf("empty path; use $ for the whole event")
	}
	var p jsonPath
	for _, part := range strings.Split(s, ".") {
		key, rest, _ := strings.Cut(part, "[")
		if key == "" && rest == "" {
			return nil, fmt.Errorf("empty key (two dots in a row, or a trailing dot)")
		}
		if key != "" {
			p = append(p, pathStep{key: key})
		} else if len(p) == 0 && !strings.HasPrefix(part, "[") {
			return nil, fmt.Errorf("empty key")
		}
		for rest != "" {
			num, after, ok := strings.Cut(rest, "]")
			if !ok {
				return nil, fmt.Errorf("missing ] after index")
			}
			i, err := strconv.Atoi(num)
			if err != nil || i < 0 {
				return nil, fmt.Errorf("index %q is not a non-negative number", num)
			}
			p = append(p, pathStep{index: i, isIdx: true})
			if after == "" {
				break
			}
			if !strings.HasPrefix(after, "[") {
				return nil, fmt.Errorf("unexpected %q after ]", after)
			}
			rest = after[1:]
		}
	}
	return p, nil
}

// lookup returns the value at the path, or nil when any step is missing.
func (p jsonPath) lookup(v any) any {
	for _, st := range p {
		if st.isIdx {
			list, ok := v.([]any)
			if !ok || st.index >= len(list) {
				return nil
			}
			v = list[st.index]
			continue
		}
		obj, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = obj[st.key]
	}
	return v
}

func onlyKeys(label string, m map[string]any, allowed []string) error {
	for _, k := range sortedKeys(m) {
		found := false
		for _, a := range allowed {
			if k == a {
				found = true
				break
			}
		}
		if !found {
			known := append([]string(nil), allowed...)
			sort.Strings(known)
			return fmt.Errorf("%s: unknown key %q; known keys: %s", label, k, strings.Join(known, ", "))
		}
	}
	return nil
}

func stringList(label string, raw any) ([]string, error) {
	list, ok := raw.([]any)
	if !ok {
		if ss, isStrings := raw.([]string); isStrings {
			return ss, nil
		}
		return nil, fmt.Errorf("%s: expected a list of strings, got %s", label, describe(raw))
	}
	out := make([]string, len(list))
	for i, item := range list {
		switch v := item.(type) {
		case string:
			out[i] = v
		case int, int64, float64, bool:
			out[i] = fmt.Sprint(v) // YAML reads 42 and true unquoted
		default:
			return nil, fmt.Errorf("%s[%d]: expected a string, got %s", label, i, describe(item))
		}
	}
	return out, nil
}

func enumValue(label string, raw any, values ...string) (string, error) {
	s, ok := raw.(string)
	if !ok {
		return "", fmt.Errorf("%s: expected one of %s, got %s", label, strings.Join(values, ", "), describe(raw))
	}
	if err := oneOf(values...)(s); err != nil {
		return "", fmt.Errorf("%s: %w", label, err)
	}
	return s, nil
}

// scalarList reads a scalar or a list of scalars (values a path is compared with).
func scalarList(label string, raw any) ([]any, error) {
	items, isList := raw.([]any)
	if !isList {
		items = []any{raw}
	}
	out := make([]any, 0, len(items))
	for i, it := range items {
		switch it.(type) {
		case nil, string, bool, int, int64, uint64, float64:
			out = append(out, normalizeScalar(it))
		default:
			if isList {
				return nil, fmt.Errorf("%s[%d]: expected a string, number, boolean or null, got %s", label, i, describe(it))
			}
			return nil, fmt.Errorf("%s: expected a string, number, boolean or null (or a list of them), got %s", label, describe(it))
		}
	}
	return out, nil
}

// normalizeScalar makes YAML and JSON numbers comparable (both become float64).
func normalizeScalar(v any) any {
	switch n := v.(type) {
	case int:
		return float64(n)
	case int64:
		return float64(n)
	case uint64:
		return float64(n)
	}
	return v
}
