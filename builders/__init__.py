"""Dataset builders, one module per dataset, each defining ``BUILDER`` (registered as entry points)."""
