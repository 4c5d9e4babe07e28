package graders

import (
	"regexp"
	"sync"
)

// A suite of thousands of tasks usually repeats a few patterns in every task file. Each distinct
// pattern is compiled, and its prefilter extracted, once per process; compiled regexps and
// prefilters are safe for concurrent use and never change.
var (
	compiledRE       sync.Map // source → *compiledRegexp
	compiledPatterns sync.Map // *regexp.Regexp → *pattern
)

type compiledRegexp struct {
	re  *regexp.Regexp
	err error
}

// compileRegexp is regexp.Compile, once per distinct source.
func compileRegexp(src string) (*regexp.Regexp, error) {
	if c, ok := compiledRE.Load(src); ok {
		return c.(*compiledRegexp).re, c.(*compiledRegexp).err
	}
	re, err := regexp.Compile(src)
	c, _ := compiledRE.LoadOrStore(src, &compiledRegexp{re: re, err: err})
	return c.(*compiledRegexp).re, c.(*compiledRegexp).err
}

// cachedPattern is newPattern, once per compiled regexp.
func cachedPattern(re *regexp.Regexp) *pattern {
	if p, ok := compiledPatterns.Load(re); ok {
		return p.(*pattern)
	}
	p, _ := compiledPatterns.LoadOrStore(re, newPattern(re))
	return p.(*pattern)
}
