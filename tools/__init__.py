"""Harness, command line and case tooling for doublecheck."""
