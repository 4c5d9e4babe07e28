// Package deps holds the tests that keep the packages' imports in the order of the data flow
// (README.md#development, the package map): each stage imports only the stages it consumes, and
// the Action is an adapter that reaches the stages below through pipeline only. It has no code.
package deps
