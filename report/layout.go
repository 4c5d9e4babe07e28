package report

import (
	"fmt"
	"sort"
	"strings"
)

// A markdown document is laid out from sections. When it would exceed its size limit, the
// sections are filled in priority order (lower number first) and the rest are shed item by item,
// with a note saying what was left out. Sections render in their own order, not their priority.
type mdSection struct {
	priority int
	head     string   // written before the items (when any item is kept, or always)
	items    []string // each item ends with "\n"
	tail     string   // written after the kept items
	always   bool     // head and tail are written even with no items (the section is fixed)
	what     string   // how omitted items are named in the note, e.g. "task rows"
	// moreNote, when set, is written after a cut list ("… and N more failures"); %d is N.
	moreNote string
	// count and size, when count is set, are the number and bytes of all the section's items,
	// of which items holds the first (a list gathered in a pass: itemList).
	count, size int

	kept int
}

func (s *mdSection) frameSize() int { return len(s.head) + len(s.tail) }

// itemCount is the number of the section's items.
func (s *mdSection) itemCount() int {
	if s.count > 0 {
		return s.count
	}
	return len(s.items)
}

// itemBytes is the size of the section's items.
func (s *mdSection) itemBytes() int {
	if s.count > 0 {
		return s.size
	}
	n := 0
	for _, it := range s.items {
		n += len(it)
	}
	return n
}

// noteReserve is room kept for the trimming note.
const noteReserve = 1024

// layoutMarkdown renders the sections within limit bytes (GitHub counts characters; bytes are
// never fewer). noteAt is the index of the section after which the trimming note goes.
func layoutMarkdown(sections []*mdSection, limit int, noteAt int, where string) string {
	total := 0
	for _, s := range sections {
		if s.always {
			total += s.frameSize()
		}
		total += s.itemBytes()
		if !s.always && s.itemCount() > 0 {
			total += s.frameSize()
		}
	}
	if total <= limit {
		for _, s := range sections {
			s.kept = len(s.items)
		}
		return render(sections, -1, "")
	}

	budget := limit - noteReserve
	for _, s := range sections {
		s.kept = 0
		if s.always {
			budget -= s.frameSize()
		}
	}
	order := make([]*mdSection, len(sections))
	copy(order, sections)
	sort.SliceStable(order, func(i, j int) bool { return order[i].priority < order[j].priority })
	for _, s := range order {
		if len(s.items) == 0 {
			continue
		}
		need := 0
		if !s.always {
			need = s.frameSize()
		}
		more := 0
		if s.moreNote != "" {
			more = len(s.moreNote) + 12
		}
		if need+len(s.items[0])+more > budget {
			continue
		}
		budget -= need
		for _, it := range s.items {
			if len(it)+more > budget {
				break
			}
			budget -= len(it)
			s.kept++
		}
		if s.kept < s.itemCount() {
			budget -= more
		}
	}
	var omitted []string
	for _, s := range sections {
		if n := s.itemCount() - s.kept; n > 0 && s.what != "" {
			omitted = append(omitted, fmt.Sprintf("%d %s", n, s.what))
		}
	}
	note := ""
	if len(omitted) > 0 {
		note = fmt.Sprintf("> [!NOTE]\n> Trimmed to fit the %s limit of %d characters: left out %s. %s\n\n",
			where, limit, joinAnd(omitted), "The job summary and the results file have everything.")
	}
	return render(sections, noteAt, note)
}

func render(sections []*mdSection, noteAt int, note string) string {
	var b strings.Builder
	for i, s := range sections {
		if s.always || s.kept > 0 {
			b.WriteString(s.head)
			for _, it := range s.items[:s.kept] {
				b.WriteString(it)
			}
			if n := s.itemCount() - s.kept; n > 0 && s.kept > 0 && s.moreNote != "" {
				b.WriteString(fmt.Sprintf(s.moreNote, n))
			}
			b.WriteString(s.tail)
		}
		if i == noteAt {
			b.WriteString(note)
		}
	}
	return b.String()
}

func joinAnd(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
