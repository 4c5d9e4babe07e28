package spec

import (
	"reflect"
	"unsafe"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// trustedDraft is draft 2020-12 without its metaschema, for compiling the schemas embedded in
// this binary: jsonschema/v5 validates every schema it compiles against its draft's metaschema
// and offers no switch to skip that for schemas already checked at build time (the schemas
// package's tests compile each file with the full draft). A draft whose metaschema is nil is
// what the library itself uses while bootstrapping: nothing is meta-validated and every
// vocabulary is on, which for these schemas (no `format`, no `content*` keywords; a test checks)
// validates exactly as draft 2020-12. When the library's layout differs, it is Draft2020 itself.
var trustedDraft = withoutMetaschema(jsonschema.Draft2020)

func withoutMetaschema(d *jsonschema.Draft) *jsonschema.Draft {
	cp := *d
	f := reflect.ValueOf(&cp).Elem().FieldByName("meta")
	if !f.IsValid() || f.Type() != reflect.TypeFor[*jsonschema.Schema]() {
		return d
	}
	reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Set(reflect.Zero(f.Type()))
	return &cp
}
