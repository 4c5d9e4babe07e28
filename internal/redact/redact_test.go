package redact

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// The registry is process-wide: these tests register their own values, which no other test of
// the package writes.
const (
	token   = "ghs_TESTredactToken0123456789"
	apiKey  = "sk-test-redact-key/with+slash="
	htmlKey = `pa<ss>&"word-123`
)

func init() {
	Add(token, apiKey, htmlKey, "short", "  padded-secret-value  \n", "-----BEGIN KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nAoIBAQC7VJTUt9Us8cKj\n-----END KEY-----")
}

func TestString(t *testing.T) {
	jsonKey, _ := json.Marshal(htmlKey)
	tests := []struct{ in, want string }{
		{"no secret here", "no secret here"},
		{"token " + token + " twice " + token, "token *** twice ***"},
		{"key=" + apiKey + ".", "key=***."},
		{"short stays", "short stays"},
		{"padded-secret-value in text", "*** in text"},
		{"html " + htmlKey, "html ***"},
		{"json " + string(jsonKey), `json "***"`},
		{"a line of a key: AoIBAQC7VJTUt9Us8cKj", "a line of a key: ***"},
		{"truncated " + token[:10], "truncated " + token[:10]},
	}
	for _, tt := range tests {
		if got := String(tt.in); got != tt.want {
			t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if got := string(Bytes([]byte(tt.in))); got != tt.want {
			t.Errorf("Bytes(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// The forms htmlKey takes in an HTML report and in JSON are registered with it.
func TestEncodedForms(t *testing.T) {
	for _, form := range []string{`pa&lt;ss&gt;&amp;&#34;word-123`, `pa\u003css\u003e\u0026\"word-123`} {
		if got := String("x " + form + " y"); got != "x *** y" {
			t.Errorf("the encoded form %s gave %q", form, got)
		}
	}
}

func TestSecretName(t *testing.T) {
	for name, want := range map[string]bool{
		"GITHUB_TOKEN": true, "INPUT_GITHUB-TOKEN": true, "INPUT_JUDGE-API-KEY": true, "ACTIONS_RUNTIME_TOKEN": true,
		"ANTHROPIC_API_KEY": true, "openai_api_key": true, "DB_PASSWORD": true, "MY_SECRET": true, "GH_PAT": true,
		"AWS_ACCESS_KEY_ID": true, "GOOGLE_APPLICATION_CREDENTIALS": true, "SIGNING_KEYS": true, "NPMAPIKEY": true,
		"PATH": false, "HOME": false, "MONKEY": false, "KEYBOARD_LAYOUT": false, "PWD": false, "SSH_AUTH_SOCK": false,
		"GITHUB_PATH": false, "LANG": false, "GITHUB_REPOSITORY": false,
	} {
		if got := SecretName(name); got != want {
			t.Errorf("SecretName(%s) = %v, want %v", name, got, want)
		}
	}
}

func TestAddEnvironAndKnown(t *testing.T) {
	AddEnviron([]string{"MY_SERVICE_TOKEN=tok-from-environ-123", "PLAIN=an-ordinary-value", "EMPTY_TOKEN=", "SHORT_KEY=abc"})
	if !Known("tok-from-environ-123") || Known("an-ordinary-value") || Known("") || Known("abc") {
		t.Errorf("Known: token %v, plain %v, empty %v, short %v", Known("tok-from-environ-123"), Known("an-ordinary-value"), Known(""), Known("abc"))
	}
}

// Whatever the writes' boundaries, a stream comes out as String would make it.
func TestWriterSplits(t *testing.T) {
	in := "log: " + token + " then " + apiKey + " and the start of one: " + token[:12] + "\nend " + token
	want := String(in)
	for size := 1; size <= len(in); size++ {
		var out bytes.Buffer
		w := NewWriter(&out)
		for i := 0; i < len(in); i += size {
			w.Write([]byte(in[i:min(i+size, len(in))]))
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if out.String() != want {
			t.Fatalf("writes of %d bytes gave\n%q\nwant\n%q", size, out.String(), want)
		}
	}
}

// What cannot begin a secret is written at once: a progress line needs no newline to show.
func TestWriterHoldsBackOnlyASecretsStart(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out)
	w.Write([]byte("progress 3/10\r"))
	if out.String() != "progress 3/10\r" {
		t.Errorf("written at once: %q", out.String())
	}
	w.Write([]byte("ends with ghs_TEST"))
	if out.String() != "progress 3/10\rends with " {
		t.Errorf("the start of a secret was written early: %q", out.String())
	}
	w.Flush()
	if out.String() != "progress 3/10\rends with ghs_TEST" {
		t.Errorf("after Flush: %q", out.String())
	}
}

func FuzzWriter(f *testing.F) {
	f.Add("plain text", uint8(3))
	f.Add("x"+token+"y"+apiKey, uint8(1))
	f.Add(token[:5]+token+token[5:], uint8(7))
	f.Fuzz(func(t *testing.T, in string, size uint8) {
		n := int(size)%16 + 1
		var out bytes.Buffer
		w := NewWriter(&out)
		for i := 0; i < len(in); i += n {
			w.Write([]byte(in[i:min(i+n, len(in))]))
		}
		w.Flush()
		if got := out.String(); got != String(in) {
			t.Errorf("writes of %d gave %q, String gives %q", n, got, String(in))
		}
		for _, s := range []string{token, apiKey} {
			if strings.Contains(out.String(), s) {
				t.Errorf("%s came through", s)
			}
		}
	})
}
