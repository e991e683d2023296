"""Stage 6, lab: the intent in, the network running in Linux network namespaces out (or a
containerlab topology); `doctor` checks what the lab needs. See labs/README.md. Next: deploy
into it, then validate."""
