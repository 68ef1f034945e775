"""`cuvil-debug ci`: workflow files that run Cuvil's triage and diff in CI (`ci init`)
and the reports a CI job publishes, rendered from one triage run (`ci report`)."""
