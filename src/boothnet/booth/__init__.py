"""Booth day: the intent as a crew sees it on the floor (cables, a wiring diagram, LLDP)."""
