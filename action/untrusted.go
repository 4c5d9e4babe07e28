package action

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/schemas"
)

// A bundle downloaded by the report mode comes from a run of the pull request's code: it is
// data to validate, never to trust. readBundle checks every entry name before reading anything,
// reads only pr.json, the results files pr.json names and the suite files under bundle/tree,
// bounds each and all of them, and validates the JSON files against their schemas.

// errNoPRRecord: the artifact is a results folder without pr.json (a run that published itself).
var errNoPRRecord = errors.New("the artifact has no " + PRFile)

// bundle is a validated collected run.
type bundle struct {
	PR *PRRecord
	// Raw and Results are the results files pr.json names, by their bundle path.
	Raw     map[string][]byte
	Results map[string]*results.SuiteResult
	// Tree holds the suite files by repository-relative path.
	Tree map[string][]byte
}

// BundleError is a refused bundle.
type BundleError struct{ Msg string }

func (e *BundleError) Error() string { return "the results bundle is refused: " + e.Msg }

func refuse(format string, args ...any) error {
	return &BundleError{Msg: fmt.Sprintf(format, args...)}
}

// readBundle reads and validates a bundle zip (an uploaded results folder holding pr.json, at
// the top or one folder down).
func readBundle(ra io.ReaderAt, size int64) (*bundle, error) {
	zr, err := zip.NewReader(ra, size)
	if err != nil {
		return nil, refuse("not a zip archive: %v", err)
	}
	if len(zr.File) > maxZipEntries {
		return nil, refuse("%d entries, over the limit of %d", len(zr.File), maxZipEntries)
	}
	entries := map[string]*zip.File{}
	prefix, found := "", 0
	for _, f := range zr.File {
		if err := checkEntryName(f.Name); err != nil {
			return nil, refuse("%v", err)
		}
		if f.Mode()&fs.ModeSymlink != 0 {
			return nil, refuse("entry %q is a symbolic link", clip(f.Name, 100))
		}
		name := path.Clean(f.Name)
		if f.FileInfo().IsDir() {
			continue
		}
		if _, dup := entries[name]; dup {
			return nil, refuse("entry %q appears twice", clip(name, 100))
		}
		entries[name] = f
		if dir, file := path.Split(name); file == PRFile && strings.Count(dir, "/") <= 1 {
			found++
			prefix = dir
		}
	}
	switch {
	case found == 0:
		return nil, errNoPRRecord
	case found > 1:
		return nil, refuse("%d %s files: upload one results folder", found, PRFile)
	}
	b := &bundle{Raw: map[string][]byte{}, Results: map[string]*results.SuiteResult{}, Tree: map[string][]byte{}}
	data, err := readEntry(entries[prefix+PRFile], maxPRFile)
	if err != nil {
		return nil, err
	}
	if b.PR, err = decodePRRecord(data); err != nil {
		return nil, err
	}
	var total int64
	for _, s := range b.PR.Suites {
		if _, dup := b.Raw[s.Results]; dup {
			return nil, refuse("%s lists %s twice", PRFile, s.Results)
		}
		f := entries[prefix+s.Results]
		if f == nil {
			return nil, refuse("%s names %s, which the bundle lacks", PRFile, s.Results)
		}
		data, err := readEntry(f, maxResultsFileSize)
		if err != nil {
			return nil, err
		}
		if total += int64(len(data)); total > maxResultsTotal {
			return nil, refuse("results files larger than %d MiB in all", maxResultsTotal>>20)
		}
		res, err := decodeUntrustedResults(data, s.Results)
		if err != nil {
			return nil, err
		}
		if res.EvalName != s.Name || "results/"+results.Slug(res.EvalName)+".json" != s.Results {
			return nil, refuse("%s holds suite %q, but %s lists it as %q", s.Results, clip(res.EvalName, 100), PRFile, s.Name)
		}
		b.Raw[s.Results], b.Results[s.Results] = data, res
	}
	treePrefix := prefix + bundleTree + "/"
	var treeBytes int64
	for name, f := range entries {
		rel, ok := strings.CutPrefix(name, treePrefix)
		if !ok {
			continue
		}
		for _, seg := range strings.Split(rel, "/") {
			if seg == ".git" {
				return nil, refuse("entry %q: a .git folder has no place in a bundle", clip(name, 100))
			}
		}
		if len(b.Tree) == maxTreeFileCount {
			return nil, refuse("more than %d suite files", maxTreeFileCount)
		}
		data, err := readEntry(f, maxTreeFile)
		if err != nil {
			return nil, err
		}
		if treeBytes += int64(len(data)); treeBytes > maxTreeTotal {
			return nil, refuse("suite files larger than %d MiB in all", maxTreeTotal>>20)
		}
		b.Tree[rel] = data
	}
	for _, s := range b.PR.Suites {
		if _, ok := b.Tree[s.SuiteFile]; !ok {
			return nil, refuse("the suite file %s of %s is not in the bundle", s.SuiteFile, s.Name)
		}
	}
	return b, nil
}

// readEntry reads one zip entry, refusing more than limit bytes whatever its header claims.
func readEntry(f *zip.File, limit int64) ([]byte, error) {
	if f.UncompressedSize64 > uint64(limit) {
		return nil, refuse("%s is %d bytes, over the limit of %d MiB", clip(f.Name, 100), f.UncompressedSize64, limit>>20)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, refuse("%s: %v", clip(f.Name, 100), err)
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, limit+1))
	if err != nil {
		return nil, refuse("%s: %v", clip(f.Name, 100), err)
	}
	if int64(len(data)) > limit {
		return nil, refuse("%s is over the limit of %d MiB", clip(f.Name, 100), limit>>20)
	}
	return data, nil
}

var (
	schemaOnce              sync.Once
	prSchema, resultsSchema *jsonschema.Schema
	schemaErr               error
)

func bundleSchemas() (*jsonschema.Schema, *jsonschema.Schema, error) {
	schemaOnce.Do(func() {
		compile := func(name string) *jsonschema.Schema {
			c := jsonschema.NewCompiler()
			c.Draft = jsonschema.Draft2020
			if err := c.AddResource(schemas.BaseURL+name, bytes.NewReader(schemas.Bytes(name))); err != nil {
				schemaErr = err
				return nil
			}
			s, err := c.Compile(schemas.BaseURL + name)
			if err != nil {
				schemaErr = err
			}
			return s
		}
		prSchema, resultsSchema = compile(schemas.PRFile), compile(schemas.ResultsFile)
	})
	return prSchema, resultsSchema, schemaErr
}

// validateJSON parses data and validates it against a schema; errors name the JSON pointer.
func validateJSON(s *jsonschema.Schema, data []byte, name string) error {
	var v any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return refuse("%s is not JSON: %v", name, err)
	}
	if dec.More() {
		return refuse("%s holds more than one JSON value", name)
	}
	if err := s.Validate(v); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			return refuse("%s does not match its schema: %s", name, strings.Join(firstLeaves(ve, 3), "; "))
		}
		return refuse("%s does not match its schema: %v", name, err)
	}
	return nil
}

// firstLeaves are the innermost validation errors, "at /pointer: message".
func firstLeaves(ve *jsonschema.ValidationError, n int) []string {
	var out []string
	var walk func(*jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(out) >= n {
			return
		}
		if len(e.Causes) == 0 {
			loc := e.InstanceLocation
			if loc == "" {
				loc = "/"
			}
			out = append(out, fmt.Sprintf("at %s: %s", clip(loc, 120), clip(e.Message, 200)))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return out
}

// decodePRRecord validates pr.json and decodes it.
func decodePRRecord(data []byte) (*PRRecord, error) {
	prS, _, err := bundleSchemas()
	if err != nil {
		return nil, err
	}
	if err := validateJSON(prS, data, PRFile); err != nil {
		return nil, err
	}
	var rec PRRecord
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rec); err != nil {
		return nil, refuse("%s: %v", PRFile, err)
	}
	for _, s := range rec.Suites {
		if err := checkEntryName(s.SuiteFile); err != nil || path.Clean(s.SuiteFile) != s.SuiteFile {
			return nil, refuse("%s: suite_file %q is not a clean relative path", PRFile, clip(s.SuiteFile, 100))
		}
	}
	return &rec, nil
}

// decodeUntrustedResults validates a results file against the results schema, then reads it.
func decodeUntrustedResults(data []byte, name string) (*results.SuiteResult, error) {
	_, resS, err := bundleSchemas()
	if err != nil {
		return nil, err
	}
	if err := validateJSON(resS, data, name); err != nil {
		return nil, err
	}
	res, err := results.Decode(data, name)
	if err != nil {
		return nil, refuse("%v", err)
	}
	return res, nil
}

// writeTree writes the suite files into dir, through an os.Root so no name can leave it.
func (b *bundle) writeTree(dir string) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	for rel, data := range b.Tree {
		name := filepath.FromSlash(rel)
		if d := filepath.Dir(name); d != "." {
			if err := root.MkdirAll(d, 0o755); err != nil {
				return refuse("suite file %q: %v", clip(rel, 100), err)
			}
		}
		if err := root.WriteFile(name, data, 0o644); err != nil {
			return refuse("suite file %q: %v", clip(rel, 100), err)
		}
	}
	return nil
}
