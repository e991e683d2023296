"""The embedded lab: a LabSpec built as Linux network namespaces (see labs/README.md)."""
