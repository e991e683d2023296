"""Stage 5, deploy: rendered configs in, devices running them out. NAPALM drivers (`frr_linux` is
boothnet's own): backup, diff, commit with a revert timer, health check, confirm or revert;
the record of which config is in force. Next: lab (or hardware), then validate."""
