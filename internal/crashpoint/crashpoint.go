// Package crashpoint marks the moments at which the crash test harness
// (make test-crash) kills the program: between a record and the change it
// records, between the files of a revert, inside a line being appended.
//
// In a normal build every function here is an empty stub the compiler
// removes. Built with -tags crashtest, the environment chooses one point
// and a count: FREEACT_CRASH_AT=NAME:N makes the process SIGKILL itself at
// the N-th time it reaches NAME, so that a test finds every kill point
// deterministically instead of by sleeping; FREEACT_CRASH_COUNT=FILE
// appends the name of every point reached to FILE, one a line, so the
// test knows how many there are.
package crashpoint
