package agent

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// A small JSON scanner for the hot path of stream parsing. encoding/json validates every line
// in full and then decodes it, byte by byte, including the large values a parser never reads
// (hook outputs, thinking signatures, tool lists). The scanner finds an object's members and the
// extent of their values, jumping over strings with bytes.IndexByte; only the values a parser
// keeps are then decoded. It is lenient (it checks structure, not every character), which is
// fine for values that are decoded afterwards; what it cannot frame is reported as malformed.

// skipSpace returns the index of the first non-blank byte at or after i.
func skipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// skipString returns the index just after the string starting at data[i] (a quote).
func skipString(data []byte, i int) (int, bool) {
	j := i + 1
	for {
		k := bytes.IndexByte(data[j:], '"')
		if k < 0 {
			return 0, false
		}
		end := j + k
		backslashes := 0
		for b := end - 1; b > i && data[b] == '\\'; b-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			return end + 1, true
		}
		j = end + 1
	}
}

// skipValue returns the index just after the value starting at data[i].
func skipValue(data []byte, i int) (int, bool) {
	if i >= len(data) {
		return 0, false
	}
	switch c := data[i]; c {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		j := i
		for j < len(data) {
			k := bytes.IndexAny(data[j:], "\"{}[]")
			if k < 0 {
				return 0, false
			}
			j += k
			switch data[j] {
			case '"':
				end, ok := skipString(data, j)
				if !ok {
					return 0, false
				}
				j = end
				continue
			case '{', '[':
				depth++
			default:
				depth--
				if depth == 0 {
					return j + 1, true
				}
			}
			j++
		}
		return 0, false
	case 't':
		return literal(data, i, "true")
	case 'f':
		return literal(data, i, "false")
	case 'n':
		return literal(data, i, "null")
	default:
		if c != '-' && (c < '0' || c > '9') {
			return 0, false
		}
		j := i + 1
		for j < len(data) && (data[j] >= '0' && data[j] <= '9' || data[j] == '.' || data[j] == 'e' || data[j] == 'E' || data[j] == '+' || data[j] == '-') {
			j++
		}
		return j, true
	}
}

func literal(data []byte, i int, lit string) (int, bool) {
	if len(data)-i >= len(lit) && string(data[i:i+len(lit)]) == lit {
		return i + len(lit), true
	}
	return 0, false
}

// eachMember calls fn with the raw key (between its quotes, escapes not decoded) and raw value of
// each member of the object in data. It reports false when data is not one object (trailing
// blanks allowed); fn may already have been called for the members before the fault.
func eachMember(data []byte, fn func(key, value []byte)) bool {
	i, more, ok := firstItem(data, '{', '}')
	for more {
		if i >= len(data) || data[i] != '"' {
			return false
		}
		keyEnd, found := skipString(data, i)
		if !found {
			return false
		}
		key := data[i+1 : keyEnd-1]
		i = skipSpace(data, keyEnd)
		if i >= len(data) || data[i] != ':' {
			return false
		}
		i = skipSpace(data, i+1)
		end, found := skipValue(data, i)
		if !found {
			return false
		}
		fn(key, data[i:end])
		i, more, ok = nextItem(data, end, '}')
	}
	return ok
}

// eachElement calls fn with each raw element of the array in data; false when data is not one
// array.
func eachElement(data []byte, fn func(value []byte)) bool {
	i, more, ok := firstItem(data, '[', ']')
	for more {
		end, found := skipValue(data, i)
		if !found {
			return false
		}
		fn(data[i:end])
		i, more, ok = nextItem(data, end, ']')
	}
	return ok
}

// firstItem reads the opening bracket of the object or array that data must be: more reports an
// item at i; an empty container must end data (ok).
func firstItem(data []byte, open, close byte) (i int, more, ok bool) {
	i = skipSpace(data, 0)
	if i >= len(data) || data[i] != open {
		return 0, false, false
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == close {
		return 0, false, skipSpace(data, i+1) == len(data)
	}
	return i, true, true
}

// nextItem reads what follows an item ending at end: a comma and the next item at i (more), or
// the closing bracket, which must end data (ok).
func nextItem(data []byte, end int, close byte) (i int, more, ok bool) {
	i = skipSpace(data, end)
	if i >= len(data) {
		return 0, false, false
	}
	switch data[i] {
	case ',':
		return skipSpace(data, i+1), true, true
	case close:
		return 0, false, skipSpace(data, i+1) == len(data)
	}
	return 0, false, false
}

// decodeString decodes a raw JSON string value; ok is false for anything else. Strings without
// escapes (the vast majority) are converted directly.
func decodeString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner), true
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}

// stringField decodes a raw value that should be a string; anything else is "".
func stringField(raw []byte) string {
	s, _ := decodeString(raw)
	return s
}

func boolField(raw []byte) bool { return string(raw) == "true" }

func intField(raw []byte) int64 {
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		f, ferr := strconv.ParseFloat(string(raw), 64)
		if ferr != nil {
			return 0
		}
		return int64(f)
	}
	return n
}

// floatField parses a raw number; ok is false when the value is absent or not a number.
func floatField(raw []byte) (float64, bool) {
	if len(raw) == 0 {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	return f, err == nil
}
