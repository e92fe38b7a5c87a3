package pii

// Version names what the detectors find. A text redacted and stored under
// this version reads the same when redacted again, so a caller that keeps
// the version with the text (a stored turn) can skip that second pass;
// any change to what the detectors find must change it, and the package's
// fingerprint test fails until it does.
const Version = "2026-11-28.2"
