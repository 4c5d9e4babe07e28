package action

import (
	"net/http"
	"strings"

	"github.com/google/go-github/v60/github"
)

// The sticky comment belongs to the identity the action runs as: only comments that identity
// wrote count as skillgate's, so a comment by anyone else that starts with the marker is never
// edited or deleted. The identity comes from the API:
//
//   - GET /user answers for a user's token (a PAT or an OAuth token): its login.
//   - Installation tokens (GITHUB_TOKEN and GitHub App tokens, ghs_…) get 403 "Resource not
//     accessible by integration" there; GraphQL's viewer answers for them with the bot's login
//     (github-actions[bot] for GITHUB_TOKEN, <app-slug>[bot] for an app).
//   - When neither answers, the identity stays unknown until the action creates a comment: the
//     created comment's author is the identity (see upsertComment).

// tokenLogin returns the login the token acts as, or "" when the API does not say.
func (r *run) tokenLogin() string {
	if r.loginKnown {
		return r.login
	}
	r.loginKnown = true
	user, resp, err := r.gh.Users.Get(r.ctx, "")
	if err == nil {
		r.login = user.GetLogin()
		return r.login
	}
	switch statusOf(resp, err) {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound:
		r.login = r.viewerLogin()
	}
	return r.login
}

// viewerLogin asks GraphQL for the viewer's login (installation tokens: the bot's).
func (r *run) viewerLogin() string {
	req, err := r.gh.NewRequest(http.MethodPost, graphQLURL(r.gh.BaseURL.Path), map[string]string{"query": "query { viewer { login } }"})
	if err != nil {
		return ""
	}
	var out struct {
		Data struct {
			Viewer struct {
				Login string `json:"login"`
			} `json:"viewer"`
		} `json:"data"`
	}
	if _, err := r.gh.Do(r.ctx, req, &out); err != nil {
		return ""
	}
	return out.Data.Viewer.Login
}

// graphQLURL is the GraphQL endpoint relative to the REST base URL's path: GHES serves REST at
// /api/v3/ and GraphQL at /api/graphql; github.com serves both from the API host's root.
func graphQLURL(basePath string) string {
	if strings.HasSuffix(basePath, "/api/v3/") {
		return strings.TrimSuffix(basePath, "v3/") + "graphql"
	}
	return basePath + "graphql"
}

// ownedBy keeps the comments written by login, in order.
func ownedBy(cs []*github.IssueComment, login string) []*github.IssueComment {
	var out []*github.IssueComment
	for _, c := range cs {
		if login != "" && strings.EqualFold(c.GetUser().GetLogin(), login) {
			out = append(out, c)
		}
	}
	return out
}
