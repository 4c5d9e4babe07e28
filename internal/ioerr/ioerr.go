// Package ioerr tells the I/O failures an adapter reports as such (exit 1, what was kept) from
// configuration errors: a full disk is not a mistake in the suite.
package ioerr
