"""The engine project's own helpers (named `tools`, like many projects' helper packages)."""
