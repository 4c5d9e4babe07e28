package runner

import (
	"strings"

	"github.com/skillgate/skillgate/internal/glob"
	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

// selectTasks applies --task and --tags (docs/format.md#selecting-tasks: globs on id or name, and
// on tags; both given means both must match). Filtered tasks are reported as skipped with the
// reason.
func (r *suiteRun) selectTasks() ([]*spec.Task, map[*spec.Task]string) {
	filtered := map[*spec.Task]string{}
	var selected []*spec.Task
	for _, t := range r.suite.Tasks {
		switch {
		case r.shards != nil && r.shards.Owner[t.ID] != r.opts.Shard.Index:
			// Before the filters: the owning shard reports a filtered task, the others defer to it.
			filtered[t] = results.ShardSkipReason(r.shards.Owner[t.ID], r.opts.Shard.Count)
		case r.opts.Skip[t.ID] != "":
			filtered[t] = r.opts.Skip[t.ID]
		case len(r.opts.TaskGlobs) > 0 && !glob.MatchAny(r.opts.TaskGlobs, t.ID, t.Name):
			filtered[t] = "filtered: --task " + strings.Join(r.opts.TaskGlobs, ",")
		case len(r.opts.TagGlobs) > 0 && !glob.MatchAny(r.opts.TagGlobs, t.Tags...):
			filtered[t] = "filtered: --tags " + strings.Join(r.opts.TagGlobs, ",")
		default:
			selected = append(selected, t)
		}
	}
	return selected, filtered
}

// Selected reports how many tasks and trigger prompts of the suite pass the filters, so the
// CLI can refuse filters that match nothing in any suite.
func Selected(s *spec.Suite, taskGlobs, tagGlobs []string) int {
	r := &suiteRun{suite: s, opts: Options{TaskGlobs: taskGlobs, TagGlobs: tagGlobs}}
	sel, _ := r.selectTasks()
	return len(sel) + len(r.triggerPrompts())
}
