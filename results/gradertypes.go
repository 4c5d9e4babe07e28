package results

// GraderType is what the reports need to know of a grader type: a one-line summary (SARIF rule
// help) and whether its grades come from an LLM judge. The graders package registers every type
// it has when it initializes, so reports read the catalog without depending on graders.
type GraderType struct {
	Name    string
	Summary string
	Judge   bool
}

var graderTypes = map[string]GraderType{}

// RegisterGraderType adds a grader type to the catalog (graders.Register calls it).
func RegisterGraderType(t GraderType) { graderTypes[t.Name] = t }

// LookupGraderType returns the registered type of that name.
func LookupGraderType(name string) (GraderType, bool) {
	t, ok := graderTypes[name]
	return t, ok
}

// IsJudge reports whether grades of that type come from an LLM judge.
func IsJudge(typ string) bool { return graderTypes[typ].Judge }
