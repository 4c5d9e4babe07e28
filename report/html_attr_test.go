package report_test

import (
	"bytes"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/skillgate/skillgate/report"
)

// attrPayload closes an attribute and opens an element: written raw anywhere in the page, it
// runs script when the page is opened (issue 27: a task's status went raw into data-status).
const attrPayload = `x" onmouseover="alert(1)" data-x='<img src=x onerror=alert(1)>`

// fillStrings sets every string reachable from v (struct fields, slices, pointers, map values
// of type string) to attrPayload with a number, so ids stay distinct.
func fillStrings(v reflect.Value, n *int) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			fillStrings(v.Elem(), n)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fillStrings(v.Field(i), n)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			fillStrings(v.Index(i), n)
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			if e := v.MapIndex(k); e.Kind() == reflect.String {
				*n++
				v.SetMapIndex(k, reflect.ValueOf(attrPayload+strconv.Itoa(*n)).Convert(e.Type()))
			}
		}
	case reflect.String:
		if v.CanSet() {
			*n++
			v.SetString(attrPayload + strconv.Itoa(*n))
		}
	}
}

// Every string of a results file a page shows — statuses included — is escaped wherever it
// lands, in element text or in an attribute.
func TestHTMLEscapesEveryStringOfAResultsFile(t *testing.T) {
	r := readCase(t, "checkout")
	n := 0
	fillStrings(reflect.ValueOf(r), &n)
	s, err := report.NewSuite(r, nil, report.CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := report.WriteHTML(&buf, &report.Input{Suites: []*report.Suite{s}}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, bad := range []string{`onmouseover="alert`, "<img", `data-x='`} {
		if i := strings.Index(page, bad); i >= 0 {
			t.Errorf("the page holds %q raw: …%s…", bad, page[max(0, i-120):min(len(page), i+60)])
		}
	}
	if !strings.Contains(page, `data-status="x&#34; onmouseover=&#34;alert(1)&#34;`) {
		t.Error("the task's status is not in its data-status attribute, escaped")
	}
}
