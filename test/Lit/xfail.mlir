// The runner's own test: an XFAIL test passes because a RUN line fails.
// XFAIL: *
// RUN: true
// RUN: false
