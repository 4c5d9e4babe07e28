package spec

import "fmt"

// suffixedID is id with the first suffix -2, -3, … that ids does not hold. Results are keyed by
// id, so an item (task, stimulus, trigger prompt) that repeats one runs under such an id.
func suffixedID(ids map[string]Pos, id string) string {
	for n := 2; ; n++ {
		next := fmt.Sprintf("%s-%d", id, n)
		if _, taken := ids[next]; !taken {
			return next
		}
	}
}
