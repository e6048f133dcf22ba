"""The docs pages as package data: ``importlib.resources.files("doublecheck.docs")``
(``doublecheck docs TOPIC`` prints one)."""
