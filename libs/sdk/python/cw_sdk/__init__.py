"""Client for the publisher affiliate platform (standard library only)."""
from ._transport import VERSION, RetryEvent, TokenProvider
from .client import CwClient
from .errors import CwApiError
from .events import EVENT_TYPES, PAYOUT_EVENT_TYPES, SALE_EVENT_TYPES, StreamedEvent
from .oauth import PUBLISHER_SCOPES, OAuthTokenProvider, publisher_resource, refresh_tokens
from .pagination import Paged
from .postbacks import (
    PostbackVerificationError,
    generate_postback_secret,
    sign_postback,
    verify_postback,
    verify_postback_signature,
)

__version__ = VERSION
__all__ = [
    "CwApiError",
    "CwClient",
    "EVENT_TYPES",
    "OAuthTokenProvider",
    "PAYOUT_EVENT_TYPES",
    "PUBLISHER_SCOPES",
    "Paged",
    "PostbackVerificationError",
    "RetryEvent",
    "SALE_EVENT_TYPES",
    "StreamedEvent",
    "TokenProvider",
    "VERSION",
    "generate_postback_secret",
    "publisher_resource",
    "refresh_tokens",
    "sign_postback",
    "verify_postback",
    "verify_postback_signature",
]
