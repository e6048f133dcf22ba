"""The JSON Schemas as package data: ``importlib.resources.files("doublecheck.schemas")``."""
