package report

// NoAgentRan says what was measured when no real agent ran in any suite of the run — the mock
// executor checked the suites, or the replay executor regraded recorded runs — as the first line
// of the terminal, the comment's headline and the check run's title; "" when an agent ran.
func NoAgentRan(in *Input) string {
	mock, replay, ran := false, false, false
	for _, s := range in.Suites {
		if s == nil || s.Result == nil {
			continue
		}
		switch s.Result.Config.EngineType {
		case "mock":
			mock = true
		case "replay":
			replay = true
		default:
			ran = true
		}
	}
	switch {
	case ran || !(mock || replay):
		return ""
	case mock && replay:
		return "mock and replay executors: the suites were checked and recorded runs regraded, no agent ran"
	case replay:
		return "replay executor: recorded runs were regraded, no agent ran"
	}
	return "mock executor: the suites were checked, no agent ran"
}

// noAgentNote is NoAgentRan as a markdown line prepended to a headline ("" when an agent ran).
func noAgentNote(in *Input) string {
	if s := NoAgentRan(in); s != "" {
		return "**" + s + ".**\n\n"
	}
	return ""
}
