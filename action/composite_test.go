package action

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// compositeMetadata is composite/action.yml with exactly the keys a composite action allows.
type compositeMetadata struct {
	metadataHeader `yaml:",inline"`
	Runs           struct {
		Using string `yaml:"using"`
		Steps []struct {
			Name  string            `yaml:"name"`
			ID    string            `yaml:"id"`
			If    string            `yaml:"if"`
			Shell string            `yaml:"shell"`
			Env   map[string]string `yaml:"env"`
			Run   string            `yaml:"run"`
		} `yaml:"steps"`
	} `yaml:"runs"`
}

// The composite action takes every input of the container action (same defaults and help) plus
// version, passes each to `skillgate action` as INPUT_<NAME>, and maps every output back.
func TestCompositeActionMatchesTheContainerAction(t *testing.T) {
	var meta compositeMetadata
	decodeMetadata(t, "../composite/action.yml", &meta)
	if meta.Runs.Using != "composite" || len(meta.Runs.Steps) != 3 {
		t.Fatalf("runs: %+v", meta.Runs)
	}
	run := meta.Runs.Steps[2]
	if run.ID != "run" || run.Shell != "bash" || strings.TrimSpace(run.Run) != "skillgate action" {
		t.Errorf("run step %+v", run)
	}
	var names []string
	for i := 0; i+1 < len(meta.Inputs.Content); i += 2 {
		name := meta.Inputs.Content[i].Value
		var in inputMeta
		meta.Inputs.Content[i+1].Decode(&in)
		if name == "version" {
			if deref(in.Default) != "dev" || !strings.Contains(meta.Inputs.Content[i+1].Content[5].LineComment, "release") {
				t.Errorf("version default %q must be dev, marked `# release` for the release workflow to pin", deref(in.Default))
			}
			continue
		}
		names = append(names, name)
		want := Inputs[len(names)-1]
		if name != want.Name || in.Description != want.Description || deref(in.Default) != want.Default {
			t.Errorf("input %s: %q default %q; action.yml has %s %q default %q", name, in.Description, deref(in.Default), want.Name, want.Description, want.Default)
		}
		env := "INPUT_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
		if run.Env[env] != "${{ inputs."+name+" }}" {
			t.Errorf("input %s is not passed as %s: %q", name, env, run.Env[env])
		}
	}
	if len(names) != len(Inputs) {
		t.Errorf("%d inputs, the container action has %d", len(names), len(Inputs))
	}
	n := 0
	for i := 0; i+1 < len(meta.Outputs.Content); i += 2 {
		var o struct{ Description, Value string }
		meta.Outputs.Content[i+1].Decode(&o)
		name := meta.Outputs.Content[i].Value
		if n >= len(Outputs) || Outputs[n].Name != name || o.Value != "${{ steps.run.outputs."+name+" }}" {
			t.Errorf("output %s = %q", name, o.Value)
		}
		n++
	}
	if n != len(Outputs) {
		t.Errorf("%d outputs, want %d", n, len(Outputs))
	}
}

// The composite action passes inputs with underscores; the action reads both spellings.
func TestInputsWithUnderscores(t *testing.T) {
	env := map[string]string{"INPUT_FAIL_ON": `verdict == "regressed"`, "INPUT_CHECK_RUN": "true", "INPUT_MODE": "merge"}
	c := newCommands(&bytes.Buffer{}, &bytes.Buffer{}, func(k string) string { return env[k] })
	cfg, err := ParseInputs(c.input)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.FailOn != `verdict == "regressed"` || !cfg.CheckRun || cfg.Mode != ModeMerge {
		t.Errorf("config %+v", cfg)
	}
	env["INPUT_CHECK-RUN"] = "false"
	if cfg, _ := ParseInputs(c.input); cfg.CheckRun {
		t.Errorf("the runner's spelling (hyphens) does not win")
	}
}

// install.sh downloads the release archive for the runner, checks it against checksums.txt and
// puts the binary on GITHUB_PATH; an archive that does not match is not installed.
func TestCompositeInstallVerifiesChecksums(t *testing.T) {
	for _, tool := range []string{"bash", "curl", "tar"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("needs %s", tool)
		}
	}
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("install.sh serves Linux and macOS")
	}
	const version = "v1.2.3"
	osName := map[string]string{"linux": "Linux", "darwin": "macOS"}[runtime.GOOS]
	arch := map[string]string{"amd64": "X64", "arm64": "ARM64"}[runtime.GOARCH]
	if arch == "" {
		t.Skip("no release for this architecture")
	}
	name := "skillgate_" + version + "_" + runtime.GOOS + "_" + runtime.GOARCH
	archive := tgz(t, map[string]string{name + "/skillgate": "#!/bin/sh\necho skillgate v1.2.3 fake\n", name + "/README.md": "readme\n"})
	sum := sha256.Sum256(archive)
	for _, tt := range []struct {
		name      string
		checksums string
		ok        bool
		want      string
	}{
		{"matching", hex.EncodeToString(sum[:]) + "  " + name + ".tar.gz\n0000  other.zip\n", true, "skillgate v1.2.3 fake"},
		{"tampered", strings.Repeat("ab", 32) + "  " + name + ".tar.gz\n", false, "does not match checksums.txt"},
		{"unlisted", hex.EncodeToString(sum[:]) + "  skillgate_" + version + "_plan9_amd64.tar.gz\n", false, "lists no " + name + ".tar.gz"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mux := http.NewServeMux()
			mux.HandleFunc("GET /skillgate/skillgate/releases/download/"+version+"/"+name+".tar.gz", func(w http.ResponseWriter, r *http.Request) { w.Write(archive) })
			mux.HandleFunc("GET /skillgate/skillgate/releases/download/"+version+"/checksums.txt", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(tt.checksums)) })
			srv := httptest.NewServer(mux)
			defer srv.Close()
			temp := t.TempDir()
			path := filepath.Join(temp, "github_path")
			os.WriteFile(path, nil, 0o644)
			cmd := exec.Command("bash", "../composite/install.sh")
			cmd.Env = append(os.Environ(), "SKILLGATE_VERSION="+version, "SKILLGATE_REPOSITORY=", "GITHUB_SERVER_URL="+srv.URL,
				"RUNNER_OS="+osName, "RUNNER_ARCH="+arch, "RUNNER_TEMP="+temp, "GITHUB_PATH="+path, "GITHUB_ACTION_PATH="+filepath.Join("..", "composite"))
			out, err := cmd.CombinedOutput()
			added, _ := os.ReadFile(path)
			if tt.ok != (err == nil) || !strings.Contains(string(out), tt.want) {
				t.Fatalf("err %v, output:\n%s", err, out)
			}
			if tt.ok && strings.TrimSpace(string(added)) != filepath.Join(temp, "skillgate-"+version, name) {
				t.Errorf("GITHUB_PATH got %q", added)
			}
			if !tt.ok && len(added) != 0 {
				t.Errorf("a refused archive went on GITHUB_PATH: %q", added)
			}
		})
	}
}

func tgz(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, name := range sortedKeys(files) {
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o755, Size: int64(len(files[name])), Typeflag: tar.TypeReg})
		tw.Write([]byte(files[name]))
	}
	tw.Close()
	gz.Close()
	return buf.Bytes()
}
