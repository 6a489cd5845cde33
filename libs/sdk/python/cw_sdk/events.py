"""The events feed's Server-Sent Events stream: each event's ``id`` is the cursor after it; a cut
connection (or a server that ends the stream, or silence past the heartbeat) is reconnected with
backoff and jitter from the last cursor (``Last-Event-ID``), so nothing is skipped or repeated.
Errors the stream cannot recover from (401, 403, a foreign or expired cursor) raise CwApiError."""
from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterator, Optional

from ._retry import backoff_delay, retry_after_delay
from .errors import CwApiError

#: Every event type the feed, the stream and postbacks carry (sale events, then payout events).
SALE_EVENT_TYPES = ("sale.created", "sale.approved", "sale.declined", "sale.reversed")
PAYOUT_EVENT_TYPES = ("payout.paid", "payout.failed")
EVENT_TYPES = SALE_EVENT_TYPES + PAYOUT_EVENT_TYPES


@dataclass
class StreamedEvent:
    #: The cursor after this event: pass it as ``cursor`` to resume after it.
    cursor: str
    #: The event type: sale.created, sale.approved, sale.declined, sale.reversed, or (see
    #: EVENT_TYPES) payout.paid / payout.failed, whose ``event["payout"]`` is the payout as
    #: ``payouts.get`` returns it. Ignore types you do not know: more may be added.
    type: str
    event: Dict[str, Any]
    #: The event's JSON exactly as sent (the postback body, byte for byte).
    data: str


def parse_sse(lines: Iterator[bytes], on_retry_hint: Callable[[int], None]) -> Iterator[Dict[str, Optional[str]]]:
    current: Dict[str, Optional[str]] = {"id": None, "event": None, "data": None}
    for raw in lines:
        line = raw.decode("utf-8").rstrip("\r\n")
        if line == "":
            if current["data"] is not None:
                yield current
            current = {"id": None, "event": None, "data": None}
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if field == "data":
            current["data"] = value if current["data"] is None else f"{current['data']}\n{value}"
        elif field in ("id", "event"):
            current[field] = value
        elif field == "retry" and value.isdigit():
            on_retry_hint(int(value))


def _transient(e: CwApiError) -> bool:
    return e.status in (0, 429, 502, 503, 504)


def stream_events(
    open_stream: Callable[[Optional[str], float], Any],
    cursor: Optional[str] = None,
    reconnect_base: Optional[float] = None,
    reconnect_max: float = 30.0,
    idle_timeout: float = 45.0,
    stop: Optional[threading.Event] = None,
    on_reconnect: Optional[Callable[[Dict[str, Any]], None]] = None,
) -> Iterator[StreamedEvent]:
    hint: Dict[str, float] = {}
    failures = 0
    attempt = 0
    while not (stop and stop.is_set()):
        attempt += 1
        delivered = False
        retry_after: Optional[float] = None
        reason = "the server ended the stream"
        try:
            with open_stream(cursor, idle_timeout) as res:
                for raw in parse_sse(iter(res.readline, b""), lambda ms: hint.__setitem__("s", ms / 1000)):
                    if raw["event"] == "error":
                        reason = "the server could not continue the stream"
                        continue
                    if not raw["id"] or raw["data"] is None:
                        continue
                    event = json.loads(raw["data"])
                    cursor = raw["id"]
                    delivered = True
                    failures = 0
                    yield StreamedEvent(cursor=raw["id"], type=raw["event"] or event.get("type", ""), event=event, data=raw["data"])
                    if stop and stop.is_set():
                        return
        except CwApiError as e:
            if not _transient(e):
                raise
            retry_after = e.retry_after
            reason = str(e.status or e.code)
        except (OSError, ValueError) as e:
            reason = f"the connection failed ({e})"
        if stop and stop.is_set():
            return
        if not delivered:
            failures += 1
        base = reconnect_base if reconnect_base is not None else hint.get("s", 1.0)
        delay = retry_after_delay(retry_after) if retry_after is not None else backoff_delay(failures, base, reconnect_max)
        if on_reconnect:
            on_reconnect({"attempt": attempt, "delay": delay, "cursor": cursor, "reason": reason})
        if stop:
            if stop.wait(delay):
                return
        else:
            time.sleep(delay)
