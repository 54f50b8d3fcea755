"""The error a request can end in: an HTTP status, an upper-snake code and a message."""

from __future__ import annotations


class ApiError(Exception):
    """A request the service refuses; ``body()`` is the JSON error body."""

    def __init__(self, status: int, code: str, message: str):
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message

    def body(self) -> dict:
        return {"error": self.message, "code": self.code}


def invalid(message: str, code: str = "INVALID_REQUEST") -> ApiError:
    """A 400 refusal."""
    return ApiError(400, code, message)
