"""The one error of the service core: an HTTP status and a message for the client."""

from __future__ import annotations


class ServiceError(Exception):
    """A refused request: HTTP ``status`` (4xx, or 503 when the database fails) and a
    ``message`` for the client; ``headers`` go with the response (``WWW-Authenticate``)."""

    def __init__(self, status: int, message: str, headers: dict | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers


def unauthorized(message: str) -> ServiceError:
    """A 401 with the ``WWW-Authenticate: Bearer`` challenge."""
    return ServiceError(401, message, {"WWW-Authenticate": "Bearer"})


__all__ = ["ServiceError", "unauthorized"]
