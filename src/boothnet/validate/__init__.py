"""Stage 7, validate: the running lab in, results out (`results.ValidationResults`).

What to test comes from the intent (`plan`), probes and measurements run in the lab's
namespaces (`perf/`, `vpn`), verdicts compare them with the intent and with Batfish. Next:
report.
"""
