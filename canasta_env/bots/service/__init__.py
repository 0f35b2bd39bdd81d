"""HTTP JSON service (being split into modules; everything lives in :mod:`.core`)."""

from .core import *  # noqa: F401,F403
from .core import MAX_BODY, MAX_DECISIONS, MAX_SCORE, STATIC, Service, ServiceError, create_app, main, seat_view  # noqa: F401,E501
