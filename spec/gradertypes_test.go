package spec_test

// The grader types register themselves with the loader (spec.RegisterGraderType): linking them
// makes the loader's tests see every type's config struct and which types are judges, as the
// skillgate binary does.
import _ "github.com/skillgate/skillgate/graders"
