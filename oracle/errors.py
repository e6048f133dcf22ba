"""The one exception type the oracle raises for bad input.

Every error carries a stable ``code`` that scripts and the case files compare
against, and a ``message`` written for a person that names what is wrong.
"""

INVALID_FEN = "invalid-fen"
UNKNOWN_VARIANT = "unknown-variant"
ILLEGAL_MOVE = "illegal-move"
INVALID_MOVE_TEXT = "invalid-move-text"
INVALID_REQUEST = "invalid-request"
UNSUPPORTED = "unsupported"


class RulesError(Exception):
    """Bad input: an invalid FEN, an unknown variant, an illegal or unreadable move."""

    def __init__(self, code: str, message: str):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message

    def as_dict(self) -> dict:
        return {"code": self.code, "message": self.message}
