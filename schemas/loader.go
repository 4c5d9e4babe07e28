package schemas

// The loader's form of the suite schemas (eval, task, trigger tests): the published documents
// split into resources at build time, with grader-config rules apart and annotations dropped, so
// that start-up only compiles (schemas/internal/build/loader.go says why). Generated into
// loader_gen.go by `go generate ./schemas`.

// LoaderResource is one JSON document to add to the loader's schema compiler.
type LoaderResource struct {
	URL  string
	JSON string
}

// LoaderRule is one of graderItem's if/then rules: the `then` schema (at URL) applies to a
// grader whose type is one of Types.
type LoaderRule struct {
	Types []string
	URL   string
}

// LoaderSchema is the loader's form of one suite schema: the root resource to compile and the
// grader-config rules to apply to each grader item.
type LoaderSchema struct {
	Root  string
	Rules []LoaderRule
}

// LoaderResources returns every resource of the loader form (shared by the suite schemas).
func LoaderResources() []LoaderResource { return loaderResources }

// Loader returns the loader form of a suite schema (false for a schema the loader does not use).
func Loader(name string) (LoaderSchema, bool) {
	s, ok := loaderSchemas[name]
	return s, ok
}
