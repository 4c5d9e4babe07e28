package runner

import "testing"

// FuzzParseShard: a shard that parses is in range and prints back as it parses.
func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"1/1", "2/4", " 3 / 3 ", "0/4", "5/4", "x", "", "1/257", "-1/-2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sh, err := ParseShard(s)
		if err != nil {
			return
		}
		if sh.Index < 1 || sh.Index > sh.Count || sh.Count > MaxShards {
			t.Fatalf("%q parsed to %v", s, sh)
		}
		if again, err := ParseShard(sh.String()); err != nil || again != sh {
			t.Fatalf("%q: %v does not round-trip", s, sh)
		}
	})
}
