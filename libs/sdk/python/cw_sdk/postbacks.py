"""Postback signatures as the platform makes them (Standard Webhooks with this API's header names):
``X-CW-Signature: v1,<base64 HMAC-SHA256 of "{X-CW-Delivery}.{X-CW-Timestamp}.{body}">``, keyed by
the bytes after ``whsec_``; during a secret rotation several space-separated signatures."""
from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import secrets as _secrets
import time
from typing import Any, Dict, Iterable, Mapping, Optional, Union

Body = Union[str, bytes]


class PostbackVerificationError(Exception):
    """A postback that is not verifiably the platform's (``reason`` says why); answer it with 4xx.

    Reasons: missing_header, invalid_timestamp, timestamp_outside_tolerance, no_matching_signature,
    no_secret, invalid_body.
    """

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


def _header(headers: Any, name: str) -> Optional[str]:
    # dicts, http.client / email messages, WSGI-style and framework header objects alike.
    get = getattr(headers, "get", None)
    if get is not None:
        for candidate in (name, name.lower(), name.title()):
            value = get(candidate)
            if value is not None:
                return value if isinstance(value, str) else " ".join(value)
    items = headers.items() if hasattr(headers, "items") else headers
    for k, v in items:
        if str(k).lower() == name.lower() and v is not None:
            return v if isinstance(v, str) else " ".join(v)
    return None


def _as_bytes(body: Body) -> bytes:
    return body.encode("utf-8") if isinstance(body, str) else bytes(body)


def _digest(secret: str, delivery_id: str, timestamp: str, body: bytes) -> bytes:
    key = base64.b64decode(secret[len("whsec_") :] if secret.startswith("whsec_") else secret)
    return hmac.new(key, f"{delivery_id}.{timestamp}.".encode() + body, hashlib.sha256).digest()


def sign_postback(secrets: Union[str, Iterable[str]], delivery_id: str, timestamp: int, body: Body) -> str:
    """The X-CW-Signature value the platform would send for this delivery, one signature per secret."""
    keys = [secrets] if isinstance(secrets, str) else list(secrets)
    return " ".join("v1," + base64.b64encode(_digest(s, delivery_id, str(timestamp), _as_bytes(body))).decode() for s in keys)


def generate_postback_secret() -> str:
    """A new signing secret in the platform's form (``whsec_`` and 32 random bytes, base64)."""
    return "whsec_" + base64.b64encode(_secrets.token_bytes(32)).decode()


def verify_postback_signature(
    headers: Mapping[str, Any],
    raw_body: Body,
    secrets: Union[str, Iterable[str]],
    tolerance_seconds: int = 300,
    now: Optional[float] = None,
) -> None:
    """Checks a postback's signature without reading its body (for GET postbacks the signed body is
    the full request URL as received). Raises PostbackVerificationError."""
    keys = [s for s in ([secrets] if isinstance(secrets, str) else list(secrets)) if s]
    if not keys:
        raise PostbackVerificationError("no_secret", "No secret to verify with.")
    delivery_id = _header(headers, "X-CW-Delivery")
    timestamp = _header(headers, "X-CW-Timestamp")
    signature = _header(headers, "X-CW-Signature")
    if not delivery_id or not timestamp or not signature:
        raise PostbackVerificationError("missing_header", "X-CW-Delivery, X-CW-Timestamp and X-CW-Signature are all required.")
    if not timestamp.isdigit() or len(timestamp) > 12:
        raise PostbackVerificationError("invalid_timestamp", "X-CW-Timestamp is not Unix seconds.")
    current = time.time() if now is None else now
    if abs(int(current) - int(timestamp)) > tolerance_seconds:
        raise PostbackVerificationError("timestamp_outside_tolerance", f"X-CW-Timestamp is more than {tolerance_seconds} s from now (a replay, or a clock off).")
    presented = []
    for part in signature.split(" "):
        if part.startswith("v1,"):
            try:
                presented.append(base64.b64decode(part[3:], validate=True))
            except (binascii.Error, ValueError):
                continue
    body = _as_bytes(raw_body)
    for secret in keys:
        expected = _digest(secret, delivery_id, timestamp, body)
        if any(hmac.compare_digest(expected, p) for p in presented):
            return
    raise PostbackVerificationError("no_matching_signature", "No signature matches any of the secrets.")


def verify_postback(
    headers: Mapping[str, Any],
    raw_body: Body,
    secrets: Union[str, Iterable[str]],
    tolerance_seconds: int = 300,
    now: Optional[float] = None,
) -> Dict[str, Any]:
    """Verifies a POST postback and returns its event (a sale event, or ``payout.paid`` /
    ``payout.failed`` with ``payout`` when the postback opted in to them: check ``type``).

    ``raw_body`` is the body exactly as received (not re-serialized JSON); ``secrets`` every secret
    valid now (two during a rotation). Raises PostbackVerificationError for a missing header, a
    timestamp outside the tolerance window, or no matching signature.
    """
    verify_postback_signature(headers, raw_body, secrets, tolerance_seconds, now)
    try:
        event = json.loads(_as_bytes(raw_body).decode("utf-8"))
    except ValueError:
        raise PostbackVerificationError("invalid_body", "The signed body is not JSON (a GET postback? use verify_postback_signature with the URL).") from None
    if not isinstance(event, dict):
        raise PostbackVerificationError("invalid_body", "The signed body is not a JSON object.")
    return event
