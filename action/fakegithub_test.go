package action

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Commit ids of the fixtures (testdata/events).
const (
	baseSHA      = "9a1f0c3b5d7e2f4a6c8b0d1e3f5a7c9b1d3e5f70" // pull_request.base.sha
	headSHA      = "4c2e8a6b0d9f1e3c5a7b9d1f3e5c7a9b1d3f5e71" // pull_request.head.sha
	mergeBaseSHA = "7e5d3c1b9a8f6e4d2c0b1a3f5e7d9c1b3a5f7e72" // also push.json's "before"
	mergeSHA     = "b3d5f7a9c1e3b5d7f9a1c3e5b7d9f1a3c5e7b973" // GITHUB_SHA of the pull_request run
	pushSHA      = "e1c3a5f7b9d1e3c5a7f9b1d3e5a7c9f1b3d5e774" // push.json's "after"
	testToken    = "ghs_TESTtoken0123456789abcdefSECRET"
)

// fakeGitHub is an httptest fake of the REST endpoints the action calls, answering with the
// payload shapes of GitHub's REST API (field names from docs.github.com/rest). It keeps comments
// and check runs in memory and can inject failures per route.
type fakeGitHub struct {
	t   testing.TB
	srv *httptest.Server

	mu       sync.Mutex
	requests []string // "METHOD path?query"
	comments []*fakeComment
	nextID   int64
	checks   []checkCall
	// prFiles are the pull request's files (filename, previous_filename for renames).
	prFiles [][2]string
	// runs are workflow runs returned by the runs list (newest first, as GitHub lists them).
	runs []fakeRun
	// prRuns are pull request runs: their artifacts can be listed, but the runs list (of push
	// runs on the base branch) does not return them.
	prRuns []fakeRun
	// pulls are the repository's pull requests by number.
	pulls map[int]fakePull
	// ancestors answer GET /commits?sha=: the baseline commit first.
	ancestors []string
	// blobs are artifact zips by artifact id; tarball is the repository tarball.
	blobs   map[int64][]byte
	tarball []byte
	// faults: route name → statuses to answer before serving normally (a 0 ends the list).
	faults map[string][]int
	// afterCreate runs after a comment is created (to simulate a racing run).
	afterCreate func()
	// blobAuth records Authorization headers seen on signed-URL downloads (must stay empty).
	blobAuth []string
	// bodies of write requests, to check the token never leaks into them.
	bodies []string
	// self is the token's identity: the author of the comments the action creates and GraphQL's
	// viewer. tokenUser makes GET /user answer with it (a PAT); otherwise GET /user answers as
	// for an installation token (403). noViewer makes GraphQL refuse the viewer too.
	self      string
	tokenUser bool
	noViewer  bool
	// failAfter: route name → how many times to carry out the request, then answer 502 (the
	// write happened, the reply was lost).
	failAfter map[string]int
	// checkRuns are the created check runs, as GitHub lists them.
	checkRuns []map[string]any
}

type fakeComment struct {
	ID        int64
	Body      string
	Login     string
	CreatedAt time.Time
}

type fakeRun struct {
	ID        int64
	HeadSHA   string
	HeadRepo  string
	CreatedAt time.Time
	Artifacts []fakeArtifact
}

type fakePull struct {
	HeadSHA  string
	HeadRepo string
	HeadRef  string
	// Commits are the pull request's commits (GET /commits/{sha}/pulls finds it by them).
	Commits []string
}

type fakeArtifact struct {
	ID      int64
	Name    string
	Size    int64
	Expired bool
}

type checkCall struct {
	Method string
	Body   map[string]any
}

func newFakeGitHub(t testing.TB) *fakeGitHub {
	f := &fakeGitHub{t: t, nextID: 1000, blobs: map[int64][]byte{}, faults: map[string][]int{}, pulls: map[int]fakePull{},
		self: "github-actions[bot]", failAfter: map[string]int{}}
	mux := http.NewServeMux()
	repo := "/repos/acme/demo"
	handle := func(pattern, route string, h func(w http.ResponseWriter, r *http.Request)) {
		mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
			f.mu.Lock()
			f.requests = append(f.requests, r.Method+" "+r.URL.RequestURI())
			body, _ := io.ReadAll(r.Body)
			if len(body) > 0 {
				f.bodies = append(f.bodies, string(body))
			}
			r.Body = io.NopCloser(strings.NewReader(string(body)))
			if q := f.faults[route]; len(q) > 0 && q[0] != 0 {
				code := q[0]
				f.faults[route] = q[1:]
				f.mu.Unlock()
				writeFault(w, code)
				return
			}
			lose := f.failAfter[route] > 0
			if lose {
				f.failAfter[route]--
			}
			f.mu.Unlock()
			if !strings.HasPrefix(r.URL.Path, "/blob/") && r.Header.Get("Authorization") != "Bearer "+testToken {
				writeError(w, http.StatusUnauthorized, "Bad credentials")
				return
			}
			if lose {
				h(httptest.NewRecorder(), r)
				writeFault(w, http.StatusBadGateway)
				return
			}
			h(w, r)
		})
	}
	handle("GET "+repo+"/compare/{basehead}", "compare", func(w http.ResponseWriter, r *http.Request) {
		base, head, _ := strings.Cut(r.PathValue("basehead"), "...")
		if base != baseSHA || head != headSHA {
			writeError(w, http.StatusNotFound, "Not Found")
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{
			"url": "https://api.github.com/repos/acme/demo/compare/" + base + "..." + head, "status": "diverged",
			"ahead_by": 2, "behind_by": 1, "total_commits": 2,
			"base_commit":       map[string]any{"sha": baseSHA, "commit": map[string]any{"message": "Tip of main"}},
			"merge_base_commit": map[string]any{"sha": mergeBaseSHA, "commit": map[string]any{"message": "Merge base"}},
			"commits":           []any{}, "files": []any{},
		})
	})
	handle("GET "+repo+"/pulls/7/files", "files", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		var items []any
		for _, pf := range f.prFiles {
			item := map[string]any{"sha": "aa11", "filename": pf[0], "status": "modified", "additions": 3, "deletions": 1, "changes": 4,
				"blob_url": "https://github.com/acme/demo/blob/" + headSHA + "/" + pf[0], "raw_url": "https://github.com/acme/demo/raw/" + headSHA + "/" + pf[0],
				"contents_url": "https://api.github.com/repos/acme/demo/contents/" + pf[0] + "?ref=" + headSHA, "patch": "@@ -1 +1 @@"}
			if pf[1] != "" {
				item["status"], item["previous_filename"] = "renamed", pf[1]
			}
			items = append(items, item)
		}
		f.mu.Unlock()
		paginate(w, r, items)
	})
	handle("GET "+repo+"/issues/7/comments", "list-comments", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		var items []any
		for _, c := range f.comments {
			items = append(items, c.json())
		}
		f.mu.Unlock()
		paginate(w, r, items)
	})
	handle("POST "+repo+"/issues/7/comments", "create-comment", func(w http.ResponseWriter, r *http.Request) {
		var in struct{ Body string }
		json.NewDecoder(r.Body).Decode(&in)
		f.mu.Lock()
		c := f.addComment(in.Body, f.self)
		after := f.afterCreate
		f.afterCreate = nil
		f.mu.Unlock()
		if after != nil {
			after()
		}
		writeJSON(w, http.StatusCreated, c.json())
	})
	handle("GET /user", "user", func(w http.ResponseWriter, r *http.Request) {
		if !f.tokenUser {
			// What GitHub answers an installation token (GITHUB_TOKEN, an app's token).
			writeJSON(w, http.StatusForbidden, map[string]any{"message": "Resource not accessible by integration",
				"documentation_url": "https://docs.github.com/rest/users/users#get-the-authenticated-user", "status": "403"})
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"login": f.self, "id": 583231, "node_id": "MDQ6VXNlcjU4MzIzMQ==", "type": "User",
			"site_admin": false, "html_url": "https://github.com/" + f.self})
	})
	handle("POST /graphql", "graphql", func(w http.ResponseWriter, r *http.Request) {
		var in struct{ Query string }
		json.NewDecoder(r.Body).Decode(&in)
		if !strings.Contains(in.Query, "viewer") {
			f.t.Errorf("graphql query %q", in.Query)
		}
		if f.noViewer {
			writeJSON(w, http.StatusOK, map[string]any{"data": nil, "errors": []any{map[string]any{"type": "FORBIDDEN",
				"path": []string{"viewer"}, "message": "Resource not accessible by integration"}}})
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"data": map[string]any{"viewer": map[string]any{"login": f.self}}})
	})
	handle("PATCH "+repo+"/issues/comments/{id}", "edit-comment", func(w http.ResponseWriter, r *http.Request) {
		id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
		var in struct{ Body string }
		json.NewDecoder(r.Body).Decode(&in)
		f.mu.Lock()
		defer f.mu.Unlock()
		for _, c := range f.comments {
			if c.ID == id {
				c.Body = in.Body
				writeJSON(w, http.StatusOK, c.json())
				return
			}
		}
		writeError(w, http.StatusNotFound, "Not Found")
	})
	handle("DELETE "+repo+"/issues/comments/{id}", "delete-comment", func(w http.ResponseWriter, r *http.Request) {
		id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
		f.mu.Lock()
		defer f.mu.Unlock()
		for i, c := range f.comments {
			if c.ID == id {
				f.comments = append(f.comments[:i], f.comments[i+1:]...)
				w.WriteHeader(http.StatusNoContent)
				return
			}
		}
		writeError(w, http.StatusNotFound, "Not Found")
	})
	handle("GET "+repo+"/actions/workflows/{workflow}/runs", "runs", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if r.PathValue("workflow") != "evals.yml" || q.Get("event") != "push" || q.Get("status") != "success" {
			f.t.Errorf("runs query: workflow %s, %s", r.PathValue("workflow"), r.URL.RawQuery)
		}
		f.mu.Lock()
		var items []map[string]any
		for i, run := range f.runs {
			if q.Get("branch") != "main" {
				continue
			}
			items = append(items, run.json(i))
		}
		f.mu.Unlock()
		writeJSON(w, http.StatusOK, map[string]any{"total_count": len(items), "workflow_runs": items})
	})
	handle("GET "+repo+"/actions/runs/{id}/artifacts", "artifacts", func(w http.ResponseWriter, r *http.Request) {
		id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
		f.mu.Lock()
		defer f.mu.Unlock()
		for _, run := range append(append([]fakeRun(nil), f.runs...), f.prRuns...) {
			if run.ID != id {
				continue
			}
			var items []map[string]any
			for _, a := range run.Artifacts {
				items = append(items, a.json(run))
			}
			writeJSON(w, http.StatusOK, map[string]any{"total_count": len(items), "artifacts": items})
			return
		}
		writeError(w, http.StatusNotFound, "Not Found")
	})
	handle("GET "+repo+"/actions/artifacts/{id}/zip", "artifact-zip", func(w http.ResponseWriter, r *http.Request) {
		id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
		f.mu.Lock()
		_, ok := f.blobs[id]
		f.mu.Unlock()
		if !ok {
			writeError(w, http.StatusNotFound, "Not Found")
			return
		}
		w.Header().Set("Location", f.srv.URL+"/blob/"+strconv.FormatInt(id, 10)+"?sig=signed")
		w.WriteHeader(http.StatusFound)
	})
	handle("GET /blob/{id}", "blob", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.blobAuth = append(f.blobAuth, r.Header.Get("Authorization"))
		var data []byte
		if r.PathValue("id") == "tarball" {
			data = f.tarball
		} else {
			id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
			data = f.blobs[id]
		}
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/zip")
		w.Write(data)
	})
	handle("GET "+repo+"/commits", "commits", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		if r.URL.Query().Get("sha") != firstOr(f.ancestors, "") {
			writeJSON(w, http.StatusOK, []any{})
			return
		}
		var items []any
		for i, sha := range f.ancestors {
			item := map[string]any{"sha": sha, "node_id": "C_" + sha[:8], "commit": map[string]any{"message": "commit " + strconv.Itoa(i)},
				"url": "https://api.github.com/repos/acme/demo/commits/" + sha, "html_url": "https://github.com/acme/demo/commit/" + sha, "parents": []any{}}
			if i+1 < len(f.ancestors) {
				item["parents"] = []any{map[string]any{"sha": f.ancestors[i+1]}}
			}
			items = append(items, item)
		}
		writeJSON(w, http.StatusOK, items)
	})
	handle("GET "+repo+"/pulls/{number}", "pull", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.PathValue("number"))
		f.mu.Lock()
		p, ok := f.pulls[n]
		f.mu.Unlock()
		if !ok {
			writeError(w, http.StatusNotFound, "Not Found")
			return
		}
		writeJSON(w, http.StatusOK, p.json(n))
	})
	handle("GET "+repo+"/commits/{sha}/pulls", "commit-pulls", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		var items []any
		var numbers []int
		for n := range f.pulls {
			numbers = append(numbers, n)
		}
		sort.Ints(numbers)
		for _, n := range numbers {
			p := f.pulls[n]
			for _, c := range append([]string{p.HeadSHA}, p.Commits...) {
				if c == r.PathValue("sha") {
					items = append(items, p.json(n))
					break
				}
			}
		}
		f.mu.Unlock()
		paginate(w, r, items)
	})
	handle("GET "+repo+"/tarball/{ref}", "tarball", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", f.srv.URL+"/blob/tarball?token=signed")
		w.WriteHeader(http.StatusFound)
	})
	handle("POST "+repo+"/check-runs", "create-check", func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		f.mu.Lock()
		f.checks = append(f.checks, checkCall{"POST", body})
		output, _ := body["output"].(map[string]any)
		cr := map[string]any{"id": 77 + len(f.checkRuns), "head_sha": body["head_sha"], "name": body["name"], "status": "completed",
			"conclusion": body["conclusion"], "completed_at": body["completed_at"], "html_url": "https://github.com/acme/demo/runs/77",
			"url": "https://api.github.com/repos/acme/demo/check-runs/77", "output": map[string]any{"title": output["title"], "summary": output["summary"]},
			"app": map[string]any{"slug": "github-actions", "id": 15368}}
		f.checkRuns = append(f.checkRuns, cr)
		f.mu.Unlock()
		writeJSON(w, http.StatusCreated, cr)
	})
	handle("GET "+repo+"/commits/{sha}/check-runs", "list-checks", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		var runs []any
		for _, c := range f.checkRuns {
			if c["head_sha"] == r.PathValue("sha") && (r.URL.Query().Get("check_name") == "" || c["name"] == r.URL.Query().Get("check_name")) {
				runs = append(runs, c)
			}
		}
		f.mu.Unlock()
		writeJSON(w, http.StatusOK, map[string]any{"total_count": len(runs), "check_runs": runs})
	})
	handle("PATCH "+repo+"/check-runs/{id}", "update-check", func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		f.mu.Lock()
		f.checks = append(f.checks, checkCall{"PATCH", body})
		f.mu.Unlock()
		writeJSON(w, http.StatusOK, map[string]any{"id": 77, "name": body["name"], "status": "completed"})
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		f.t.Errorf("unexpected request %s %s", r.Method, r.URL)
		writeError(w, http.StatusNotFound, "Not Found")
	})
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeGitHub) addComment(body, login string) *fakeComment {
	f.nextID++
	c := &fakeComment{ID: f.nextID, Body: body, Login: login, CreatedAt: time.Date(2026, 7, 3, 10, 40, 0, 0, time.UTC).Add(time.Duration(f.nextID) * time.Second)}
	f.comments = append(f.comments, c)
	return c
}

func (c *fakeComment) json() map[string]any {
	return map[string]any{
		"id": c.ID, "node_id": fmt.Sprintf("IC_kwDO%d", c.ID), "url": fmt.Sprintf("https://api.github.com/repos/acme/demo/issues/comments/%d", c.ID),
		"html_url": fmt.Sprintf("https://github.com/acme/demo/pull/7#issuecomment-%d", c.ID), "body": c.Body,
		"user":       map[string]any{"login": c.Login, "id": 41898282, "type": "Bot"},
		"created_at": c.CreatedAt.Format(time.RFC3339), "updated_at": c.CreatedAt.Format(time.RFC3339),
		"issue_url": "https://api.github.com/repos/acme/demo/issues/7", "author_association": "NONE",
	}
}

func (run fakeRun) json(i int) map[string]any {
	repo := func(full string) map[string]any {
		owner, name, _ := strings.Cut(full, "/")
		return map[string]any{"id": 700000001 + len(owner), "name": name, "full_name": full, "private": false, "fork": owner != "acme",
			"owner": map[string]any{"login": owner, "id": 90000001}, "html_url": "https://github.com/" + full}
	}
	created := run.CreatedAt.Format(time.RFC3339)
	return map[string]any{
		"id": run.ID, "name": "evals", "node_id": fmt.Sprintf("WFR_%d", run.ID), "head_branch": "main", "head_sha": run.HeadSHA,
		"path": ".github/workflows/evals.yml", "display_title": "Merge pull request", "run_number": 40 + i, "event": "push",
		"status": "completed", "conclusion": "success", "workflow_id": 555001, "check_suite_id": 66000 + run.ID,
		"url":        fmt.Sprintf("https://api.github.com/repos/acme/demo/actions/runs/%d", run.ID),
		"html_url":   fmt.Sprintf("https://github.com/acme/demo/actions/runs/%d", run.ID),
		"created_at": created, "updated_at": created, "run_attempt": 1, "run_started_at": created,
		"artifacts_url":   fmt.Sprintf("https://api.github.com/repos/acme/demo/actions/runs/%d/artifacts", run.ID),
		"head_commit":     map[string]any{"id": run.HeadSHA, "tree_id": "t" + run.HeadSHA[:8], "message": "Merge", "timestamp": created},
		"repository":      repo("acme/demo"),
		"head_repository": repo(run.HeadRepo),
	}
}

// json is a pull request as GET /repos/{owner}/{repo}/pulls/{number} returns it (trimmed to the
// documented keys the action and go-github read, plus the usual neighbours).
func (p fakePull) json(n int) map[string]any {
	owner, _, _ := strings.Cut(p.HeadRepo, "/")
	repo := func(full string, id int) map[string]any {
		o, nm, _ := strings.Cut(full, "/")
		return map[string]any{"id": id, "node_id": fmt.Sprintf("R_%d", id), "name": nm, "full_name": full, "private": false,
			"fork": o != "acme", "owner": map[string]any{"login": o, "id": 90000000 + len(o), "type": "User"},
			"html_url": "https://github.com/" + full, "url": "https://api.github.com/repos/" + full, "default_branch": "main"}
	}
	return map[string]any{
		"url": fmt.Sprintf("https://api.github.com/repos/acme/demo/pulls/%d", n), "id": 1900000000 + n, "node_id": fmt.Sprintf("PR_kwDO%d", n),
		"html_url": fmt.Sprintf("https://github.com/acme/demo/pull/%d", n), "number": n, "state": "open", "locked": false,
		"title": "Greet people in French too", "user": map[string]any{"login": owner, "id": 90000002, "type": "User"},
		"created_at": "2026-07-03T10:29:00Z", "updated_at": "2026-07-03T10:31:00Z", "draft": false, "merged": false,
		"head":               map[string]any{"label": owner + ":" + p.HeadRef, "ref": p.HeadRef, "sha": p.HeadSHA, "user": map[string]any{"login": owner}, "repo": repo(p.HeadRepo, 700000002)},
		"base":               map[string]any{"label": "acme:main", "ref": "main", "sha": baseSHA, "user": map[string]any{"login": "acme"}, "repo": repo("acme/demo", 700000001)},
		"author_association": "CONTRIBUTOR", "maintainer_can_modify": true, "commits": 1 + len(p.Commits), "additions": 3, "deletions": 1, "changed_files": 1,
		"_links": map[string]any{"html": map[string]any{"href": fmt.Sprintf("https://github.com/acme/demo/pull/%d", n)}},
	}
}

func (a fakeArtifact) json(run fakeRun) map[string]any {
	created := run.CreatedAt.Add(time.Minute)
	return map[string]any{
		"id": a.ID, "node_id": fmt.Sprintf("MDg6QXJ0aWZhY3Q%d", a.ID), "name": a.Name, "size_in_bytes": a.Size,
		"url":                  fmt.Sprintf("https://api.github.com/repos/acme/demo/actions/artifacts/%d", a.ID),
		"archive_download_url": fmt.Sprintf("https://api.github.com/repos/acme/demo/actions/artifacts/%d/zip", a.ID),
		"expired":              a.Expired, "created_at": created.Format(time.RFC3339), "updated_at": created.Format(time.RFC3339),
		"expires_at": created.Add(90 * 24 * time.Hour).Format(time.RFC3339), "digest": "sha256:00",
		"workflow_run": map[string]any{"id": run.ID, "repository_id": 700000001, "head_repository_id": 700000001, "head_branch": "main", "head_sha": run.HeadSHA},
	}
}

// paginate answers a list endpoint page by page with GitHub's Link header.
func paginate(w http.ResponseWriter, r *http.Request, items []any) {
	per, _ := strconv.Atoi(r.URL.Query().Get("per_page"))
	if per <= 0 {
		per = 30
	}
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	if page <= 0 {
		page = 1
	}
	start := min((page-1)*per, len(items))
	end := min(start+per, len(items))
	if end < len(items) {
		u := *r.URL
		q := u.Query()
		q.Set("page", strconv.Itoa(page+1))
		u.RawQuery = q.Encode()
		w.Header().Set("Link", fmt.Sprintf(`<http://%s%s>; rel="next"`, r.Host, u.RequestURI()))
	}
	out := items[start:end]
	if out == nil {
		out = []any{}
	}
	writeJSON(w, http.StatusOK, out)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, map[string]any{"message": msg, "documentation_url": "https://docs.github.com/rest", "status": strconv.Itoa(code)})
}

// writeFault answers with the status GitHub would send for that failure.
func writeFault(w http.ResponseWriter, code int) {
	switch code {
	case http.StatusTooManyRequests:
		w.Header().Set("Retry-After", "2")
		writeError(w, code, "You have exceeded a secondary rate limit.")
	case http.StatusForbidden:
		writeError(w, code, "Resource not accessible by integration")
	case http.StatusUnauthorized:
		writeError(w, code, "Bad credentials")
	case http.StatusGone:
		writeError(w, code, "Artifact has expired")
	default:
		writeError(w, code, http.StatusText(code))
	}
}

// called counts requests whose "METHOD path" starts with prefix.
func (f *fakeGitHub) called(prefix string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, r := range f.requests {
		if strings.HasPrefix(r, prefix) {
			n++
		}
	}
	return n
}

func (f *fakeGitHub) commentBodies() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	sort.Slice(f.comments, func(i, j int) bool { return f.comments[i].ID < f.comments[j].ID })
	for _, c := range f.comments {
		out = append(out, c.Body)
	}
	return out
}

func firstOr(ss []string, def string) string {
	if len(ss) > 0 {
		return ss[0]
	}
	return def
}
