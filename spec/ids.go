package spec

import "fmt"

// uniqueID is the id that a task, trigger prompt or stimulus whose id is already taken runs
// as: the first free id-2, id-3, …. Results are keyed by id, so two may not share one.
func uniqueID[V any](taken map[string]V, id string) string {
	for n := 2; ; n++ {
		next := fmt.Sprintf("%s-%d", id, n)
		if _, ok := taken[next]; !ok {
			return next
		}
	}
}
