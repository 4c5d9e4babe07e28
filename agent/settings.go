package agent

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
)

// cliSpecs holds the built-in agent CLIs by canonical name.
var cliSpecs = map[string]*cliSpec{}

// registerCLI registers a built-in agent CLI as an executor.
func registerCLI(spec *cliSpec) {
	if spec.settings == nil {
		spec.settings = map[string]func(string) error{}
	}
	spec.settings["skills_dir"] = checkSkillsDir
	cliSpecs[spec.name] = spec
	Register(spec.name, func(opts Options) (Executor, error) {
		return newCLIExecutor(spec, opts)
	}, spec.aliases...)
}

// ValidateSettings checks, before any run, the settings an executor would receive in
// Options.Settings: `command` for the command executor, `<name>` (config.executors.<name>) for
// the agent CLIs. Executors without settings accept anything. The error names the setting and
// says what is wrong.
func ValidateSettings(name string, settings map[string]any) error {
	canonical, ok := Canonical(name)
	if !ok {
		canonical = name
	}
	if canonical == commandExecutorName {
		_, err := parseCommandSettings(settings)
		return err
	}
	if spec, ok := cliSpecs[canonical]; ok {
		_, err := builtinSettings(spec, settings)
		return err
	}
	return nil
}

// builtinSettings reads an agent CLI's settings: the map under its name (or an alias).
func builtinSettings(spec *cliSpec, settings map[string]any) (map[string]string, error) {
	cfg := map[string]string{}
	var raw any
	key := spec.name
	for _, k := range append([]string{spec.name}, spec.aliases...) {
		if v, ok := settings[k]; ok {
			raw, key = v, k
			break
		}
	}
	if raw == nil {
		return cfg, nil
	}
	m, ok := raw.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s settings: expected a mapping of setting names to values, got %s", key, describe(raw))
	}
	known := slices.Sorted(maps.Keys(spec.settings))
	for _, k := range sortedKeys(m) {
		check, ok := spec.settings[k]
		if !ok {
			return nil, fmt.Errorf("%s settings: unknown key %q; known keys: %s", key, k, strings.Join(known, ", "))
		}
		s, ok := m[k].(string)
		if !ok {
			return nil, fmt.Errorf("%s.%s: expected a string, got %s", key, k, describe(m[k]))
		}
		if err := check(s); err != nil {
			return nil, fmt.Errorf("%s.%s: %w", key, k, err)
		}
		cfg[k] = s
	}
	return cfg, nil
}

// checkSkillsDir accepts a folder inside the workspace.
func checkSkillsDir(s string) error {
	clean := filepath.ToSlash(filepath.Clean(s))
	if s == "" || filepath.IsAbs(s) || strings.HasPrefix(s, "/") || clean == "." || clean == ".." || strings.HasPrefix(clean, "../") {
		return fmt.Errorf("%q must be a folder inside the workspace, relative to it (e.g. .agents/skills)", s)
	}
	return nil
}

// oneOf accepts one of a fixed set of values.
func oneOf(values ...string) func(string) error {
	return func(s string) error {
		for _, v := range values {
			if s == v {
				return nil
			}
		}
		return fmt.Errorf("unknown value %q; use one of %s", s, strings.Join(values, ", "))
	}
}

// describe names the type of a YAML-decoded value for error messages.
func describe(v any) string {
	switch t := v.(type) {
	case nil:
		return "nothing"
	case string:
		return fmt.Sprintf("the string %q", t)
	case bool:
		return fmt.Sprintf("the boolean %v", t)
	case int, int64, float64, uint64:
		return fmt.Sprintf("the number %v", t)
	case []any:
		return "a list"
	case map[string]any:
		return "a mapping"
	}
	return fmt.Sprintf("a %T", v)
}
