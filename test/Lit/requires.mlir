// The runner's own test: a test that needs a feature that is never available
// is skipped (reported as ignored), not run.
// REQUIRES: cuda
// RUN: false
