package report

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// xmlText makes agent and grader text safe for XML 1.0: characters the spec forbids (most C0
// controls, lone surrogates, U+FFFE/U+FFFF) and invalid UTF-8 are written as visible escapes
// such as \x1b, so the file parses and the reader still sees what was there. Line ends become
// \n, as any XML parser would read them.
func xmlText(s string) string {
	if strings.IndexByte(s, '\r') >= 0 {
		s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	}
	if xmlClean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case xmlAllowed(r):
			b.WriteRune(r)
		case r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		i += size
	}
	return b.String()
}

func xmlClean(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			// Slow path only for non-ASCII text.
			for _, r := range s[i:] {
				if r == utf8.RuneError || !xmlAllowed(r) {
					return false
				}
			}
			return utf8.ValidString(s[i:])
		}
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' {
			return false
		}
	}
	return true
}

// xmlAllowed is the XML 1.0 Char production.
func xmlAllowed(r rune) bool {
	return r == 0x9 || r == 0xA || r == 0xD ||
		(r >= 0x20 && r <= 0xD7FF) || (r >= 0xE000 && r <= 0xFFFD) || (r >= 0x10000 && r <= 0x10FFFF)
}

// truncate shortens s to at most n runes, marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i, count := 0, 0
	for i < len(s) && count < n {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		count++
	}
	if i >= len(s) {
		return s
	}
	return s[:i] + "… [truncated]"
}

// collapseSpace collapses every run of whitespace (newlines included) to one space.
func collapseSpace(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// mdCell makes text safe inside a GitHub markdown table cell or list item: one line, markdown
// and HTML punctuation escaped, @mentions defused, length bounded. Agent output can hold
// anything; it must never break the comment's structure or ping people.
func mdCell(s string, limit int) string {
	s = collapseSpace(s)
	if limit > 0 {
		s = truncate(s, limit)
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for _, r := range s {
		switch r {
		case '|', '\\', '`', '*', '_', '[', ']', '#', '~', '!':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '@':
			b.WriteString("@\u2060") // a word joiner keeps GitHub from resolving a mention
		default:
			if r < 0x20 || r == 0x7f {
				continue
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}

// mdCode puts text in an inline code span that no backtick inside can close.
func mdCode(s string, limit int) string {
	s = collapseSpace(s)
	if limit > 0 {
		s = truncate(s, limit)
	}
	s = strings.ReplaceAll(s, "|", "¦") // a pipe ends a table cell even inside code
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	pad := ""
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		pad = " "
	}
	return fence + pad + s + pad + fence
}
