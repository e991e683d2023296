"""Show week: ``boothnet watch`` runs light validation rounds on the running network, keeps their
history in SQLite, raises and clears alarms, draws a page and exports Prometheus metrics."""
