"""The one exception type the oracle raises for bad input.

Every error carries a stable ``code`` that scripts and the case files compare
against, and a ``message`` written for a person that names what is wrong.
"""

import reprlib

INVALID_FEN = "invalid-fen"
UNKNOWN_VARIANT = "unknown-variant"
ILLEGAL_MOVE = "illegal-move"
INVALID_MOVE_TEXT = "invalid-move-text"
INVALID_REQUEST = "invalid-request"
UNSUPPORTED = "unsupported"
FIGURES_NOT_FOUND = "figures-not-found"   # the chess figure drawings are missing: a damaged install

QUOTE_LIMIT = 200   # characters of an offending input a message shows


def clip(text: str, limit: int = QUOTE_LIMIT) -> str:
    """``text``, or its first ``limit`` characters followed by ``... (N characters)``."""
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


def quote(value, limit: int = QUOTE_LIMIT) -> str:
    """``value`` as a message shows it: a string's repr, or the repr of its first
    ``limit`` characters followed by ``... (N characters)``, so that a huge input
    never makes a huge message.  Other values are shown by a shortened repr
    (a few items of a list, a few levels of nesting, the size of a huge number)."""
    if isinstance(value, str):
        if len(value) <= limit:
            return repr(value)
        return f"{value[:limit]!r}... ({len(value)} characters)"
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 3 * limit:
        return f"a whole number of about {int(value.bit_length() * 0.30103)} digits"
    return _SHORT.repr(value)


_SHORT = reprlib.Repr()
_SHORT.maxlevel = 3
_SHORT.maxstring = _SHORT.maxother = _SHORT.maxlong = QUOTE_LIMIT


class RulesError(Exception):
    """Bad input: an invalid FEN, an unknown variant, an illegal or unreadable move."""

    def __init__(self, code: str, message: str):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message

    def as_dict(self) -> dict:
        return {"code": self.code, "message": self.message}
