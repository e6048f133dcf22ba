"""Case-file generators, one module per variant; see ``tools.generate`` for the contract."""
