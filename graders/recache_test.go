package graders

import "testing"

func TestRegexpsCompileOncePerSource(t *testing.T) {
	a, err := compileRegexp(`(?i)trace\w+`)
	b, _ := compileRegexp(`(?i)trace\w+`)
	if err != nil || a != b {
		t.Fatalf("same source: %p %p %v", a, b, err)
	}
	if c, _ := compileRegexp(`(?i)trace\w*`); c == a {
		t.Fatal("different sources share a regexp")
	}
	if _, err := compileRegexp(`a(`); err == nil {
		t.Fatal("an invalid pattern must fail every time")
	}
	if _, err := compileRegexp(`a(`); err == nil {
		t.Fatal("an invalid pattern must fail every time")
	}
	if p, q := cachedPattern(a), cachedPattern(b); p != q || !p.MatchString("a TRACEback") || p.MatchString("trace") {
		t.Fatal("patterns of one regexp are shared and match as the regexp")
	}
}
