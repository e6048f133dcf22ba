"""The case tree as package data: ``importlib.resources.files("doublecheck.cases")``."""
