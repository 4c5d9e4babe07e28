package spec

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/skillgate/skillgate/schemas"
)

// loadTriggerTests reads trigger_tests.yaml (or .yml) next to eval.yaml, if present (docs/format.md#trigger-tests).
func (l *loader) loadTriggerTests() {
	var found []string
	for _, name := range []string{"trigger_tests.yaml", "trigger_tests.yml"} {
		p := filepath.Join(l.s.Dir, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			found = append(found, p)
		}
	}
	if len(found) == 0 {
		return
	}
	if len(found) > 1 {
		l.add(Warnf(Pos{File: found[1]}, "", "keep one of them", "both %s and %s exist; only %s is read",
			filepath.Base(found[0]), filepath.Base(found[1]), filepath.Base(found[0])))
	}
	file := found[0]
	data, err := readSuiteFile(l.s.Dir, file)
	if err != nil {
		l.add(Errorf(Pos{File: file}, "", RefusedFix(err), "cannot read trigger tests: %v", unwrapPathError(err)))
		return
	}
	l.files[file] = true
	doc, ds := parseYAML(file, data)
	l.add(ds...)
	l.add(validateSchema(doc, schemas.TriggerTestsFile)...)
	root := doc.Root
	if !isMapping(root) {
		return
	}
	ctx := &fileCtx{file: file, dir: l.s.Dir}
	tt := &TriggerTests{File: file, Skill: cmp.Or(stringAt(root, "skill"), l.s.Skill), Pos: ctx.pos(root)}
	l.triggerSkill = tt.Skill
	ids := map[string]Pos{}
	for _, list := range []struct {
		key    string
		prefix string
		should bool
		dst    *[]*TriggerPrompt
	}{
		{"should_trigger_prompts", "should", true, &tt.ShouldTrigger},
		{"should_not_trigger_prompts", "should-not", false, &tt.ShouldNot},
	} {
		items := get(root, list.key)
		if !isSequence(items) {
			continue
		}
		for i, item := range items.Content {
			if !isMapping(item) {
				continue
			}
			p := &TriggerPrompt{
				ID:            fmt.Sprintf("%s-%d", list.prefix, i+1),
				Prompt:        stringAt(item, "prompt"),
				Reason:        stringAt(item, "reason"),
				Confidence:    "high",
				ShouldTrigger: list.should,
				Pos:           ctx.pos(item),
			}
			if c, ok := stringOf(get(item, "confidence")); ok {
				p.Confidence = c // the schema rejects anything but high and medium
			}
			if strings.TrimSpace(p.Prompt) == "" {
				// Nothing to ask the agent: the prompt is left out of the trigger tests.
				if pn := get(item, "prompt"); pn != nil {
					l.add(Warnf(ctx.pos(pn), ctx.key(list.key, i, "prompt"), "write the prompt", "the prompt is blank; it is left out"))
				}
				continue
			}
			idAt := ctx.pos(item)
			if id, ok := stringOf(get(item, "id")); ok && id != "" {
				p.ID, idAt = id, ctx.pos(get(item, "id"))
			}
			if first, dup := ids[p.ID]; dup {
				id := p.ID
				p.ID = uniqueID(ids, id)
				l.add(Warnf(idAt, ctx.key(list.key, i, "id"), "give each prompt its own `id:`",
					"duplicate trigger prompt id %q (first used at %s); this prompt runs as %q", id, first, p.ID))
			}
			ids[p.ID] = idAt
			*list.dst = append(*list.dst, p)
		}
	}
	if len(tt.ShouldTrigger)+len(tt.ShouldNot) == 0 {
		l.add(Warnf(ctx.pos(root), "", "add `should_trigger_prompts:` or `should_not_trigger_prompts:` with at least one `- prompt: …`",
			"trigger tests need at least one prompt; none run"))
		return
	}
	if l.s.Skill != "" && tt.Skill != "" && tt.Skill != l.s.Skill {
		l.add(Warnf(ctx.pos(get(root, "skill")), "skill", "use the same skill name in both files",
			"trigger tests check the skill %q, but eval.yaml's skill is %q", tt.Skill, l.s.Skill))
	}
	l.s.TriggerTests = tt
}
