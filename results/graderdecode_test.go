package results

import (
	"encoding/json"
	"reflect"
	"testing"
)

// The direct decoder must give what encoding/json gives, or fail where it fails. Its input is
// always valid JSON: encoding/json checks a whole document before any UnmarshalJSON sees part
// of it.
func FuzzDecodeGraderResult(f *testing.F) {
	for _, seed := range []string{
		`{"identifier":"g","type":"text","score":1,"weight":1,"passed":true,"feedback":"All text checks passed","details":{"contains":["a"]},"duration_ms":3,"status":"error","source":{"file":"t.yaml","line":9,"col":5}}`,
		`{"identifier":"g\u00e9","feedback":"caf\u00e9 \"q\"","score":0.25,"weight":2e0,"passed":false}`,
		`{"identifier":"g","feedback":"é","score":-0,"source":null,"details":null}`,
		`{"score":"1"}`, `{"passed":1}`, `{"passed":null}`, `{"duration_ms":1.5}`, `{"duration_ms":-3}`,
		`{"source":{"file":"a","line":"x"}}`, `{"source":{"file":"a","line":1,"extra":2}}`, `{"source":{"file":"a\\b"}}`,
		`{"unknown":1,"identifier":"x"}`, `{"identifier":"a","identifier":"b"}`, `{"weight":01}`, `{"score":1e400}`,
		`{"details":{"a":[1,2,{"b":null}]},"status":"pending"}`, `{}`, `{"type":null}`, `{"score":.5}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return
		}
		var want *GraderResult
		wantErr := json.Unmarshal(data, &want)
		got, gotErr := decodeGraderResult(data)
		if (wantErr == nil) != (gotErr == nil) {
			t.Fatalf("%s: error %v, want %v", data, gotErr, wantErr)
		}
		if wantErr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: got %+v, want %+v", data, got, want)
		}
	})
}
