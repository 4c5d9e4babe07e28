package results

import (
	"maps"
	"reflect"
)

// Grader details that repeat in every run of a grader — a text grader's patterns, a grader's
// config echoed for readers — are written once per file, under grader_details by grader name,
// and put back into each run's details when the file is read. A key is shared only when every
// result of that grader in the suite (or its baseline) has it with the same value, so reading
// restores exactly what was written.

// sharedDetails finds the details every result of each grader name has in common; nil when
// there are none.
func sharedDetails(tasks []*TaskResult) map[string]map[string]any {
	var f sharedFinder
	for _, t := range tasks {
		f.add(t)
	}
	return f.result()
}

// sharedDetailsOf is sharedDetails of a suite's tasks, read from its file again when OpenFile
// did not hold them.
func sharedDetailsOf(s *SuiteResult) map[string]map[string]any {
	if s.file == nil {
		return sharedDetails(s.Tasks)
	}
	var f sharedFinder
	s.eachTask(func(t *TaskResult) error {
		f.add(t)
		return nil
	})
	return f.result()
}

// sharedFinder finds shared details task by task.
type sharedFinder struct {
	byName map[string]*sharedCandidate
}

type sharedCandidate struct {
	keys map[string]any // a key drops out at the first result that differs
	n    int
	dead bool
}

func (f *sharedFinder) add(t *TaskResult) {
	for _, r := range t.Runs {
		for _, g := range r.Validations {
			c := f.byName[g.Name]
			if c == nil {
				if f.byName == nil {
					f.byName = map[string]*sharedCandidate{}
				}
				c = &sharedCandidate{keys: maps.Clone(g.Details), dead: g.Details == nil}
				f.byName[g.Name] = c
				continue
			}
			c.n++
			if c.dead {
				continue
			}
			if g.Details == nil {
				c.dead = true
				continue
			}
			for k, want := range c.keys {
				// Equal values encode identically; a false "different" only keeps a key in the runs.
				if v, ok := g.Details[k]; !ok || !reflect.DeepEqual(v, want) {
					delete(c.keys, k)
				}
			}
			c.dead = len(c.keys) == 0
		}
	}
}

func (f *sharedFinder) result() map[string]map[string]any {
	var out map[string]map[string]any
	for name, c := range f.byName {
		if c.dead || len(c.keys) == 0 || c.n < 1 {
			continue
		}
		if out == nil {
			out = map[string]map[string]any{}
		}
		out[name] = c.keys
	}
	return out
}

// withoutShared returns a copy of the task whose runs' details lack the shared keys; the task
// itself is not changed. Tasks without shared keys are returned as they are.
func withoutShared(t *TaskResult, shared map[string]map[string]any) *TaskResult {
	if len(shared) == 0 {
		return t
	}
	cp := *t
	cp.Runs = make([]*RunResult, len(t.Runs))
	for i, r := range t.Runs {
		rc := *r
		rc.Validations = make(Validations, len(r.Validations))
		for j, g := range r.Validations {
			keys := shared[g.Name]
			if keys == nil {
				rc.Validations[j] = g
				continue
			}
			gc := *g
			gc.Details = make(map[string]any, len(g.Details))
			for k, v := range g.Details {
				if _, isShared := keys[k]; !isShared {
					gc.Details[k] = v
				}
			}
			rc.Validations[j] = &gc
		}
		cp.Runs[i] = &rc
	}
	return &cp
}

// restoreShared puts a file's shared details back into every run's details.
func restoreShared(s *SuiteResult) {
	if s == nil {
		return
	}
	for _, t := range s.Tasks {
		restoreTaskShared(t, s.SharedDetails)
	}
	s.SharedDetails = nil
}

// restoreTaskShared puts a file's shared details back into the details of a task's runs.
func restoreTaskShared(t *TaskResult, shared map[string]map[string]any) {
	if len(shared) == 0 {
		return
	}
	for _, r := range t.Runs {
		for _, g := range r.Validations {
			keys := shared[g.Name]
			if keys == nil {
				continue
			}
			if g.Details == nil {
				g.Details = make(map[string]any, len(keys))
			}
			maps.Copy(g.Details, keys)
		}
	}
}
