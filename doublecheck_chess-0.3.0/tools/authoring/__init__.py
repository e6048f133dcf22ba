"""Authoring the suite: the case generators and the rule mutants that measure it."""
