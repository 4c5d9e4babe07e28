package report

import "fmt"

// itemList gathers a markdown section's items in a pass over the tasks: every item is counted
// and measured, and the first ones are kept while they fit in room bytes — a document's size
// limit, past which layoutMarkdown never shows an item — so a list of a million tasks costs
// what the document can show.
type itemList struct {
	items       []string
	count, size int
	room        int
}

func (l *itemList) add(item string) {
	l.count++
	l.size += len(item)
	if l.size <= l.room {
		l.items = append(l.items, item)
	}
}

// complete reports whether every item was kept.
func (l *itemList) complete() bool { return len(l.items) == l.count }

// fill gives a section the list's items.
func (l *itemList) fill(sec *mdSection) *mdSection {
	sec.items, sec.count, sec.size = l.items, l.count, l.size
	return sec
}

// rankedItems gathers items of several ranks in a pass, to be listed by rank (lowest first),
// each rank in the order added: per rank at most most items are kept (0: no bound), and only
// while they fit in room bytes.
type rankedItems struct {
	ranks []itemList
	most  int
}

func newRankedItems(ranks, most, room int) *rankedItems {
	r := &rankedItems{ranks: make([]itemList, ranks), most: most}
	for i := range r.ranks {
		r.ranks[i].room = room
	}
	return r
}

// add adds an item of a rank; render makes it, only when it may be kept.
func (r *rankedItems) add(rank int, render func() string) {
	l := &r.ranks[rank]
	if r.most > 0 && l.count >= r.most {
		l.count++ // never shown: counted, not made
		return
	}
	l.add(render())
}

// count is the number of items of every rank.
func (r *rankedItems) count() int {
	n := 0
	for i := range r.ranks {
		n += r.ranks[i].count
	}
	return n
}

// merged is the items in rank order: those kept, up to the first rank not kept whole.
func (r *rankedItems) merged() *itemList {
	out := &itemList{room: r.ranks[0].room}
	whole := true
	for i := range r.ranks {
		l := &r.ranks[i]
		if whole {
			out.items = append(out.items, l.items...)
			whole = l.complete()
		}
		out.count += l.count
		out.size += l.size
	}
	return out
}

// capped is the first n items in rank order and, when there are more, a line saying how many
// more there are in where (capList's list, made from a bounded gathering).
func (r *rankedItems) capped(n int, where string) []string {
	all := r.merged()
	if all.count <= n {
		return all.items
	}
	return append(all.items[:n:n], fmt.Sprintf("- … and %s more in %s\n", thousands(all.count-n), where))
}
