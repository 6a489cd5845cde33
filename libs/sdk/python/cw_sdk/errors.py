"""One error class for every failed call: the API's ``{detail, code, request_id}``, or a network failure."""
from __future__ import annotations

import json
from typing import Any, Dict, List, Mapping, Optional


class CwApiError(Exception):
    """A call that did not succeed.

    ``status`` is the HTTP status, or 0 when no answer came (``code`` is then ``network_error`` or
    ``timeout``). ``code``, ``detail`` and ``request_id`` are the API's error body; quote
    ``request_id`` when asking for support.
    """

    def __init__(
        self,
        status: int,
        code: str,
        detail: str,
        request_id: Optional[str] = None,
        errors: Optional[List[Dict[str, str]]] = None,
        retry_after: Optional[float] = None,
        method: Optional[str] = None,
        url: Optional[str] = None,
    ) -> None:
        self.status = status
        self.code = code
        self.detail = detail
        self.request_id = request_id
        self.errors: List[Dict[str, str]] = errors or []
        #: Retry-After of the answer, in seconds, when it had one.
        self.retry_after = retry_after
        self.method = method
        self.url = url
        prefix = f"{status} " if status else ""
        suffix = f" (request {request_id})" if request_id else ""
        super().__init__(f"{prefix}{code}: {detail}{suffix}")


def error_from_response(status: int, text: str, headers: Mapping[str, str], method: Optional[str], url: Optional[str], retry_after: Optional[float]) -> CwApiError:
    body: Dict[str, Any] = {}
    try:
        parsed = json.loads(text)
        if isinstance(parsed, dict):
            body = parsed
    except ValueError:
        pass
    code = body.get("code") if isinstance(body.get("code"), str) else body.get("error") if isinstance(body.get("error"), str) else f"http_{status}"
    detail = (
        body["detail"]
        if isinstance(body.get("detail"), str)
        else body["error_description"]
        if isinstance(body.get("error_description"), str)
        else (text[:200] or f"HTTP {status}")
    )
    request_id = body.get("request_id") if isinstance(body.get("request_id"), str) else headers.get("X-Request-Id")
    errors = body.get("errors") if isinstance(body.get("errors"), list) else None
    return CwApiError(status, str(code), str(detail), request_id, errors, retry_after, method, url)
