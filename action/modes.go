package action

// mode is one way the action runs (docs/action.md#modes). Each mode is a type of its own: what
// it evaluates is its execute method, and what publishing does differently for it is its
// policy, instead of flags on the run.
type mode interface {
	execute(r *run) int
	policy() publishPolicy
}

// publishPolicy is what differs between modes when results are published.
type publishPolicy struct {
	// collect: phase one of the fork-safe flow. LLM judges are deferred, nothing is compared,
	// nothing is written to GitHub, and the results folder holds a bundle for the report
	// workflow instead of a gate.
	collect bool
	// reporting: the report workflow publishing a collected run. Its check run is how it gates
	// (its job is not on the pull request), and baselines are never rerun: nothing executes next
	// to its write token.
	reporting bool
}

// runMode evaluates the suites the change affects and publishes them with a gate.
type runMode struct{}

func (runMode) execute(r *run) int    { return r.evaluateAndPublish() }
func (runMode) policy() publishPolicy { return publishPolicy{} }

// collectMode evaluates like runMode with LLM judges deferred and leaves a bundle for the
// report workflow (a pull request from a fork: no secrets, read-only token).
type collectMode struct{}

func (collectMode) execute(r *run) int    { return r.evaluateAndPublish() }
func (collectMode) policy() publishPolicy { return publishPolicy{collect: true} }

// reportMode publishes a run that collectMode left, from a workflow_run workflow.
type reportMode struct{}

func (reportMode) execute(r *run) int    { return r.reportCollected() }
func (reportMode) policy() publishPolicy { return publishPolicy{reporting: true} }

// mergeMode combines the shards of a matrix and publishes them as runMode would; on a fork it
// collects instead.
type mergeMode struct{ fork bool }

func (m mergeMode) execute(r *run) int    { return r.mergeShards() }
func (m mergeMode) policy() publishPolicy { return publishPolicy{collect: m.fork} }

// vallyMode publishes a Vally results.jsonl instead of running suites, as the mode it replaces
// would publish.
type vallyMode struct{ publishing mode }

func (vallyMode) execute(r *run) int      { return r.publishVally() }
func (m vallyMode) policy() publishPolicy { return m.publishing.policy() }

// resolveMode picks the mode: auto runs in full unless the pull request comes from a fork,
// whose run collects for the report workflow; a merge on a fork collects too.
func (r *run) resolveMode() mode {
	fork := r.ev.Fork()
	r.writes.readOnly = fork
	var m mode
	switch r.cfg.Mode {
	case ModeReport:
		return reportMode{}
	case ModeMerge:
		return mergeMode{fork: fork}
	case ModeAuto:
		m = runMode{}
		if fork {
			r.cmd.noticef("skillgate: pull request from a fork (%s): its token is read-only and it gets no secrets or models permission, so this run collects: the agent and the deterministic graders run, LLM judges are deferred, and the report workflow (mode: report) publishes the results", r.ev.PR.HeadRepo)
			m = collectMode{}
		}
	case ModeCollect:
		m = collectMode{}
		if r.ev.PR == nil {
			r.cmd.noticef("skillgate: mode: collect on a %s event, which has no pull request to collect for: running in full", orWord(r.ev.Name, "workflow"))
			m = runMode{}
		}
	default:
		m = runMode{}
	}
	if r.cfg.VallyResults != "" {
		return vallyMode{publishing: m}
	}
	return m
}

// writeState is what GitHub has let this run write.
type writeState struct {
	// readOnly: the token cannot write (a pull request from a fork, or a write was refused).
	readOnly bool
	// refused: GitHub refused a write with 403; auto mode then leaves a bundle for the report
	// workflow.
	refused bool
}

// reportedRun is the collected run report mode publishes.
type reportedRun struct {
	// key is the collecting run's comment and check-run key.
	key string
	// staleHead: the pull request moved on since the collected run; only the check run on the
	// collected commit is posted.
	staleHead bool
}
