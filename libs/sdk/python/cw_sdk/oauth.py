"""OAuth 2.1 access tokens for an app acting for a publisher account (the portal is the
authorization server; refresh tokens rotate at each use)."""
from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Callable, Dict, Optional

from ._transport import TokenProvider
from .errors import CwApiError, error_from_response

PUBLISHER_SCOPES = ["affiliate:read", "catalog:read", "links:write", "reports:read", "postbacks:read", "offline_access"]


def publisher_resource(base_url: str) -> str:
    """The publisher API's resource indicator (the audience of its tokens)."""
    return base_url.rstrip("/") + "/api/v1/publisher"


def refresh_tokens(token_endpoint: str, client_id: str, refresh_token: str, resource: str) -> Dict[str, Any]:
    """A refresh grant; the answer with ``expires_at`` (seconds since the epoch) added."""
    data = urllib.parse.urlencode({"grant_type": "refresh_token", "client_id": client_id, "refresh_token": refresh_token, "resource": resource}).encode()
    req = urllib.request.Request(token_endpoint, data=data, method="POST", headers={"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as res:
            tokens = json.loads(res.read().decode("utf-8"))
    except urllib.error.HTTPError as e:
        raise error_from_response(e.code, e.read().decode("utf-8", "replace"), e.headers, "POST", token_endpoint, None) from None
    tokens["expires_at"] = time.time() + float(tokens.get("expires_in", 600))
    return tokens


class OAuthTokenProvider(TokenProvider):
    """Keeps an access token fresh from a refresh token: refreshed a minute before it expires, or
    after the API refused it. ``on_tokens`` receives every new set: store it (the refresh token rotates)."""

    def __init__(
        self,
        token_endpoint: str,
        client_id: str,
        resource: str,
        tokens: Dict[str, Any],
        on_tokens: Optional[Callable[[Dict[str, Any]], None]] = None,
    ) -> None:
        self.token_endpoint = token_endpoint
        self.client_id = client_id
        self.resource = resource
        self.tokens = dict(tokens)
        self.on_tokens = on_tokens
        self._lock = threading.Lock()

    def get_token(self) -> str:
        with self._lock:
            if float(self.tokens.get("expires_at", 0)) - time.time() < 60:
                refresh = self.tokens.get("refresh_token")
                if not refresh:
                    raise CwApiError(401, "invalid_token", "The access token expired and there is no refresh token: sign in again.")
                fresh = refresh_tokens(self.token_endpoint, self.client_id, refresh, self.resource)
                fresh.setdefault("refresh_token", refresh)
                self.tokens = fresh
                if self.on_tokens:
                    self.on_tokens(dict(fresh))
            return str(self.tokens["access_token"])

    def invalidate(self, token: str) -> None:
        with self._lock:
            if token == self.tokens.get("access_token"):
                self.tokens["expires_at"] = 0
