"""The one place a request is made: credentials per surface, Idempotency-Key on writes, retries
(safe or idempotent requests only) with backoff and jitter honouring Retry-After, one error class."""
from __future__ import annotations

import http.client
from abc import ABC, abstractmethod
import json
import os
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from dataclasses import dataclass
from typing import Any, Callable, Dict, Mapping, Optional, Union

from ._retry import IDEMPOTENT_METHODS, backoff_delay, parse_retry_after, retry_after_delay
from .errors import CwApiError, error_from_response

VERSION = "0.1.0"


class TokenProvider(ABC):
    """Supplies OAuth access tokens; ``invalidate`` is called after a 401 so the next call refreshes.
    Subclass it and implement ``get_token`` (``OAuthTokenProvider`` is one)."""

    @abstractmethod
    def get_token(self) -> str:
        """A current access token."""

    def invalidate(self, token: str) -> None:
        pass


@dataclass
class RetryEvent:
    attempt: int
    delay: float
    method: str
    url: str
    #: The answer's status, or 0 when no answer came.
    status: int
    code: str
    retry_after: Optional[float] = None


def query_string(query: Optional[Mapping[str, Any]]) -> str:
    pairs = []
    for k, v in (query or {}).items():
        if v is None:
            continue
        if isinstance(v, bool):
            v = "true" if v else "false"
        if isinstance(v, (list, tuple)):
            pairs.extend((k, str(x)) for x in v)
        else:
            pairs.append((k, str(v)))
    return ("?" + urllib.parse.urlencode(pairs)) if pairs else ""


def normalize_base_url(url: str) -> str:
    url = url.rstrip("/")
    return url[: -len("/api/v1/publisher")] if url.endswith("/api/v1/publisher") else url


class Transport:
    def __init__(
        self,
        base_url: Optional[str] = None,
        api_key: Optional[str] = None,
        access_token: Union[str, TokenProvider, None] = None,
        reporting_token: Optional[str] = None,
        offers_credential: Optional[str] = None,
        max_retries: int = 3,
        base_delay: float = 0.5,
        max_delay: float = 20.0,
        max_retry_after: float = 60.0,
        timeout: float = 30.0,
        on_retry: Optional[Callable[[RetryEvent], None]] = None,
        idempotency_key: Optional[Callable[[], str]] = None,
        user_agent: Optional[str] = None,
    ) -> None:
        base_url = base_url or os.environ.get("CW_BASE_URL")
        if not base_url:
            raise ValueError("No base URL: pass base_url or set CW_BASE_URL (e.g. http://127.0.0.1:8080 for the local platform).")
        self.base_url = normalize_base_url(base_url)
        self.api_key = api_key or (None if access_token else os.environ.get("CW_API_KEY") or None)
        self.access_token = access_token
        self.reporting_token = reporting_token
        self.offers_credential = offers_credential
        self.max_retries = max_retries
        self.base_delay = base_delay
        self.max_delay = max_delay
        self.max_retry_after = max_retry_after
        self.timeout = timeout
        self.on_retry = on_retry
        self.idempotency_key = idempotency_key or (lambda: str(uuid.uuid4()))
        self.user_agent = user_agent or f"cw-platform-sdk-python/{VERSION}"

    def url(self, path: str, query: Optional[Mapping[str, Any]] = None) -> str:
        return f"{self.base_url}{path}{query_string(query)}"

    def auth_headers(self, auth: str) -> "tuple[Dict[str, str], Optional[str]]":
        def missing(what: str, option: str) -> CwApiError:
            return CwApiError(0, "missing_credential", f"This call needs {what}: pass {option} to the client.")

        if auth == "none":
            return {}, None
        if auth == "reporting":
            if not self.reporting_token:
                raise missing("a reporting token", "reporting_token")
            return {"Authorization": f"Bearer {self.reporting_token}"}, None
        if auth == "offers":
            if not self.offers_credential:
                raise missing("an offers credential", "offers_credential")
            return {"Authorization": f"Bearer {self.offers_credential}"}, None
        if self.api_key:
            return {"X-API-Key": self.api_key}, None
        if isinstance(self.access_token, str):
            return {"Authorization": f"Bearer {self.access_token}"}, None
        if self.access_token is not None:
            token = self.access_token.get_token()
            return {"Authorization": f"Bearer {token}"}, token
        raise missing("an API key or an OAuth access token", "api_key (or set CW_API_KEY) or access_token")

    def open(
        self,
        method: str,
        path: str,
        auth: str,
        query: Optional[Mapping[str, Any]] = None,
        body: Any = None,
        idempotent: bool = False,
        idempotency_key: Union[str, bool, None] = None,
        accept: str = "application/json",
        headers: Optional[Dict[str, str]] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
    ) -> http.client.HTTPResponse:
        """The 2xx response of a call (its body unread), after retries; anything else raises CwApiError."""
        method = method.upper()
        url = self.url(path, query)
        key: Optional[str] = None
        if idempotent and idempotency_key is not False:
            key = idempotency_key if isinstance(idempotency_key, str) else self.idempotency_key()
        retryable = method in IDEMPOTENT_METHODS or key is not None
        data = None if body is None else json.dumps(body).encode("utf-8")
        retries = self.max_retries if max_retries is None else max_retries
        refreshed = False
        attempt = 0
        while True:
            auth_headers, token = self.auth_headers(auth)
            h = {"Accept": accept, "User-Agent": self.user_agent, **auth_headers}
            if data is not None:
                h["Content-Type"] = "application/json"
            if key:
                h["Idempotency-Key"] = key
            h.update(headers or {})
            request = urllib.request.Request(url, data=data, method=method, headers=h)
            retry_after: Optional[float] = None
            try:
                return urllib.request.urlopen(request, timeout=self.timeout if timeout is None else timeout)
            except urllib.error.HTTPError as e:
                text = e.read().decode("utf-8", "replace")
                retry_after = parse_retry_after(e.headers.get("Retry-After"))
                failure = error_from_response(e.code, text, e.headers, method, url, retry_after)
                if e.code == 401 and token and not refreshed and isinstance(self.access_token, TokenProvider):
                    self.access_token.invalidate(token)
                    refreshed = True
                    continue
                again = e.code in (429, 503) or (e.code == 409 and failure.code == "idempotency_key_in_use" and key is not None)
                if not again or not retryable:
                    raise failure from None
            except (urllib.error.URLError, http.client.HTTPException, ConnectionError, socket.timeout, TimeoutError, OSError) as e:
                reason = getattr(e, "reason", e)
                timed_out = isinstance(reason, (socket.timeout, TimeoutError))
                failure = CwApiError(
                    0,
                    "timeout" if timed_out else "network_error",
                    f"No complete answer within {self.timeout} s." if timed_out else f"The request failed: {reason}",
                    method=method,
                    url=url,
                )
                if not retryable:
                    raise failure from e
            if attempt >= retries:
                raise failure
            if retry_after is not None and retry_after > self.max_retry_after:
                raise failure
            delay = retry_after_delay(retry_after) if retry_after is not None else backoff_delay(attempt, self.base_delay, self.max_delay)
            attempt += 1
            if self.on_retry:
                self.on_retry(RetryEvent(attempt, delay, method, url, failure.status, failure.code, retry_after))
            time.sleep(delay)

    def call(self, method: str, path: str, auth: str, *, as_text: bool = False, **kwargs: Any) -> Any:
        with self.open(method, path, auth, **kwargs) as res:
            raw = res.read().decode("utf-8")
        if as_text:
            return raw
        return json.loads(raw) if raw else None
