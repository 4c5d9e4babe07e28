package agent

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/skillgate/skillgate/results"
)

// addTranscriptSeeds seeds a fuzz target with the recorded transcripts of one agent: whole files
// and each of their lines alone.
func addTranscriptSeeds(f *testing.F, agent string) {
	files, _ := filepath.Glob(filepath.Join("testdata/transcripts", agent, "*"))
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		for _, line := range bytes.Split(data, []byte("\n")) {
			if len(line) < 4096 {
				f.Add(line)
			}
		}
	}
	f.Add([]byte(""))
	f.Add([]byte("not json\n{\"type\":"))
	f.Add([]byte("[{\"type\":\"result\"},"))
}

// checkRun asserts what must hold for any input: a run, a digest that agrees with its
// transcript, and JSON that encodes (raw events hold valid JSON).
func checkRun(t *testing.T, run *results.AgentRun) {
	t.Helper()
	if run == nil {
		t.Fatal("nil run")
	}
	d := run.SessionDigest
	want := results.Digest(run.Transcript, d.Usage, d.SessionID)
	if !reflect.DeepEqual(d, want) {
		t.Fatalf("digest does not match the transcript:\n%+v\n%+v", d, want)
	}
	if d.ToolCallCount != len(d.ToolsUsed) {
		t.Fatalf("tool_call_count %d, tools_used %d", d.ToolCallCount, len(d.ToolsUsed))
	}
	raw := 0
	for _, ev := range run.Transcript {
		if ev.Type == results.EventRaw {
			raw++
		}
	}
	if raw > run.UnknownEvents {
		t.Fatalf("%d raw events but %d unknown", raw, run.UnknownEvents)
	}
	if _, err := json.Marshal(run); err != nil {
		t.Fatalf("the run does not encode: %v", err)
	}
}

func fuzzFormat(f *testing.F, format string) {
	addTranscriptSeeds(f, format)
	f.Fuzz(func(t *testing.T, data []byte) {
		run, _ := ParseTranscript(format, bytes.NewReader(data))
		checkRun(t, run)
	})
}

func FuzzClaude(f *testing.F)   { fuzzFormat(f, FormatClaudeCode) }
func FuzzCodex(f *testing.F)    { fuzzFormat(f, FormatCodex) }
func FuzzCopilot(f *testing.F)  { fuzzFormat(f, FormatCopilot) }
func FuzzGemini(f *testing.F)   { fuzzFormat(f, FormatGemini) }
func FuzzQwenCode(f *testing.F) { fuzzFormat(f, FormatQwenCode) }
func FuzzOpencode(f *testing.F) { fuzzFormat(f, FormatOpencode) }

func FuzzDetect(f *testing.F) {
	for _, agent := range []string{"claude-code", "codex", "copilot", "gemini", "qwen-code", "opencode"} {
		addTranscriptSeeds(f, agent)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		run, err := ParseTranscript("", bytes.NewReader(data))
		if run == nil {
			if err == nil {
				t.Fatal("no run and no error")
			}
			return
		}
		checkRun(t, run)
	})
}

// FuzzCommandMapping fuzzes both the mapping (as JSON settings) and the agent output it maps.
func FuzzCommandMapping(f *testing.F) {
	data, err := os.ReadFile("testdata/command/acme-agent.yaml")
	if err != nil {
		f.Fatal(err)
	}
	var settings map[string]any
	if err := yaml.Unmarshal(data, &settings); err != nil {
		f.Fatal(err)
	}
	mapping, _ := json.Marshal(settings["command"])
	stream, _ := os.ReadFile("testdata/command/acme-agent.jsonl")
	f.Add(mapping, stream)
	f.Add(mapping, []byte(`[{"event":"call","call":{"id":1}}, {"event":"return"}]`))
	f.Add([]byte(`{"argv":["a"],"map":{"rules":[{"emit":"tool_result","result":"$","success":{"path":"a[0].b","equals":[null,1,true,"x"]}}]}}`),
		[]byte("{\"a\":[{\"b\":1}]}\n{}\nnope\n"))
	f.Add([]byte(`{"argv":["a"],"output":"json","map":{"rules":[{"emit":"final","content":"x","usage":{"turns":"n","cost_usd":"c"},"usage_mode":"add"}]}}`),
		[]byte(`{"x":[{"text":"t"}],"n":"2","c":true}`))
	f.Add([]byte(`{"argv":["a"],"output":"text"}`), []byte("plain"))
	for _, name := range []string{"qwen-code", "opencode"} { // each rules; uncached input
		data, err := os.ReadFile("testdata/command/" + name + ".yaml")
		if err != nil {
			f.Fatal(err)
		}
		if err := yaml.Unmarshal(data, &settings); err != nil {
			f.Fatal(err)
		}
		mapping, _ := json.Marshal(settings["command"])
		streams, _ := filepath.Glob("testdata/command/" + name + "-*.jsonl")
		for _, s := range streams {
			stream, _ := os.ReadFile(s)
			f.Add(mapping, stream)
		}
	}
	f.Fuzz(func(t *testing.T, mappingJSON, output []byte) {
		var m any
		if json.Unmarshal(mappingJSON, &m) != nil {
			return
		}
		cs, err := parseCommandSettings(map[string]any{"command": m})
		if err != nil {
			return
		}
		p := newCommandParser(cs)
		if err := p.consume(bytes.NewReader(output)); err != nil {
			t.Fatal(err)
		}
		run, _ := p.finish()
		checkRun(t, run)
	})
}

// FuzzJSONScan checks the stream scanner against encoding/json: every valid JSON object is
// framed, and each member's raw value decodes to what encoding/json reads for that key.
func FuzzJSONScan(f *testing.F) {
	addTranscriptSeeds(f, "claude-code")
	f.Add([]byte(`{"a":"x\"y\\","b":[1,{"c":"]"}],"d":-1.5e3,"e":true,"f":null,"g":{}}`))
	f.Add([]byte(` { } `))
	f.Fuzz(func(t *testing.T, data []byte) {
		var want map[string]any
		if !json.Valid(data) || json.Unmarshal(data, &want) != nil || want == nil {
			// Not an object: the scanner may accept or refuse, but must not panic.
			eachMember(data, func(k, v []byte) {})
			eachElement(data, func(v []byte) {})
			return
		}
		got := map[string]any{}
		escaped := false
		if !eachMember(data, func(k, v []byte) {
			if bytes.IndexByte(k, '\\') >= 0 || !utf8.Valid(k) {
				escaped = true // encoding/json decodes such keys; the scanner keeps them raw
			}
			var val any
			if err := json.Unmarshal(v, &val); err != nil {
				t.Fatalf("member %q: raw value %q does not decode: %v", k, v, err)
			}
			got[string(k)] = val
			if s, ok := val.(string); ok {
				if d, ok := decodeString(v); !ok || d != s {
					t.Fatalf("decodeString(%q) = %q, %v; want %q", v, d, ok, s)
				}
			}
		}) {
			t.Fatalf("a valid object was not framed: %q", data)
		}
		if !escaped && !reflect.DeepEqual(got, want) {
			t.Fatalf("members = %v, want %v", got, want)
		}
	})
}
