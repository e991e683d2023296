"""Deploy stage: NAPALM frr_linux driver, backups, health checks, result records."""
