"""Tools beside the product path: the synthetic show-floor generator and scale-bench helpers."""
