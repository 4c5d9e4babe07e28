package results

import (
	"encoding/json"
	"strconv"
)

// decodeGraderResult decodes one grader result of a run's validations. Results files hold one
// per grader per run, so this is the hottest object a reader decodes; its usual fields are read
// directly from the bytes (no validation pass and no reflection), and anything unusual — an
// unknown key, a value of an unexpected type, an escaped string — falls back to encoding/json,
// which decodes (or rejects) exactly as before.
func decodeGraderResult(data []byte) (*GraderResult, error) {
	if r, ok := fastGraderResult(data); ok {
		return r, nil
	}
	var r *GraderResult
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, err
	}
	return r, nil
}

func fastGraderResult(data []byte) (*GraderResult, bool) {
	r := &GraderResult{}
	ok := plainMembers(data, func(key, v []byte) (good bool) {
		switch string(key) {
		case "identifier":
			r.Name, good = plainString(v)
		case "type":
			r.Type, good = plainString(v)
		case "feedback":
			r.Feedback, good = plainString(v)
		case "status":
			var s string
			s, good = plainString(v)
			r.Status = Status(s)
		case "score":
			r.Score, good = number(v)
		case "weight":
			r.Weight, good = number(v)
		case "duration_ms":
			var n int64
			n, err := strconv.ParseInt(string(v), 10, 64)
			r.DurationMS, good = n, err == nil
		case "passed":
			r.Passed, good = v[0] == 't' && string(v) == "true", string(v) == "true" || string(v) == "false"
		case "details":
			good = json.Unmarshal(v, &r.Details) == nil
		case "source":
			r.Source, good = fastLocation(v)
		}
		return good
	})
	return r, ok
}

// fastLocation reads a source location {file, line, col}; null is nil.
func fastLocation(data []byte) (*Location, bool) {
	if string(data) == "null" {
		return nil, true
	}
	l := &Location{}
	ok := plainMembers(data, func(key, v []byte) (good bool) {
		switch string(key) {
		case "file":
			l.File, good = plainString(v)
		case "line", "col":
			n, err := strconv.Atoi(string(v))
			good = err == nil
			if string(key) == "line" {
				l.Line = n
			} else {
				l.Col = n
			}
		}
		return good
	})
	if !ok {
		l = nil
		return l, json.Unmarshal(data, &l) == nil
	}
	return l, true
}

// plainMembers calls member with each member of the JSON object data; false when data is no
// object or member could not read a value plainly (an unknown key, an escape), which leaves it
// to encoding/json.
func plainMembers(data []byte, member func(key, v []byte) bool) bool {
	return objectMembers(data, func(key, v []byte) error {
		if !member(key, v) {
			return errFallback
		}
		return nil
	}) == nil
}

var errFallback = &json.UnsupportedValueError{Str: "fallback"}

// plainString reads a JSON string without escapes or non-ASCII bytes.
func plainString(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' || !plainASCII(v[1:len(v)-1]) {
		return "", false
	}
	return string(v[1 : len(v)-1]), true
}

// number reads a JSON number as encoding/json does.
func number(v []byte) (float64, bool) {
	if len(v) == 0 || !(v[0] == '-' || v[0] >= '0' && v[0] <= '9') {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(v), 64)
	return f, err == nil
}
