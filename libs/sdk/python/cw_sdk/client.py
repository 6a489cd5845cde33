"""The client: one object per platform and credential set, its surfaces as attributes.

    cw = CwClient(api_key="live_…", base_url="https://…")   # or CW_API_KEY, CW_BASE_URL
    for link in cw.links.list(subid="newsletter"):
        print(link["url"])
"""
from __future__ import annotations

import threading
import urllib.parse
from typing import Any, Callable, Dict, Iterator, List, Optional, Union

from ._transport import RetryEvent, TokenProvider, Transport
from .events import StreamedEvent, stream_events
from .pagination import Paged, by_cursor, by_event_cursor, by_offset, by_page_number

PUB = "/api/v1/publisher"
REP = "/api/v1/affiliate-reporting"
MON = "/api/v1/monetize"

Json = Dict[str, Any]
Key = Union[str, bool, None]


def _q(query: Dict[str, Any]) -> Dict[str, Any]:
    return {k: v for k, v in query.items() if v is not None}


class _Resource:
    def __init__(self, t: Transport) -> None:
        self._t = t

    def _get(self, path: str, query: Optional[Dict[str, Any]], auth: str) -> Any:
        return self._t.call("GET", path, auth, query=query)

    def _paged(self, path: str, query: Dict[str, Any], auth: str, nxt: Callable[..., Any], items_key: str = "data") -> Paged[Json]:
        return Paged(lambda q: self._get(path, q, auth), _q(query), nxt, items_key)


class Events(_Resource):
    """The events feed (publisher API or reporting-token API: the same log)."""

    def __init__(self, t: Transport, prefix: str, auth: str) -> None:
        super().__init__(t)
        self._prefix = prefix
        self._auth = auth

    def list(self, cursor: Optional[str] = None, limit: Optional[int] = None) -> Paged[Json]:
        """Events after ``cursor``, oldest first; iterating walks until caught up (``has_more`` false)."""
        return self._paged(f"{self._prefix}/events/", {"cursor": cursor, "limit": limit}, self._auth, by_event_cursor)

    def latest_cursor(self) -> str:
        """The cursor after the newest event now: stream from it to get only what happens from now on."""
        cursor = None
        while True:
            page = self._get(f"{self._prefix}/events/", _q({"cursor": cursor, "limit": 500}), self._auth)
            cursor = page["next_cursor"]
            if not page["has_more"]:
                return cursor

    def stream(
        self,
        cursor: Optional[str] = None,
        stop: Optional[threading.Event] = None,
        reconnect_base: Optional[float] = None,
        reconnect_max: float = 30.0,
        idle_timeout: float = 45.0,
        on_reconnect: Optional[Callable[[Dict[str, Any]], None]] = None,
    ) -> Iterator[StreamedEvent]:
        """Every event as it happens (Server-Sent Events) from ``cursor`` (None: from the first event),
        reconnecting with backoff after a cut and resuming after the last event received. Ends when
        ``stop`` is set (checked between events and while waiting to reconnect) or the loop breaks."""

        def open_stream(after: Optional[str], timeout: float) -> Any:
            return self._t.open(
                "GET",
                f"{self._prefix}/events/stream/",
                self._auth,
                accept="text/event-stream",
                headers={"Last-Event-ID": after} if after else {},
                timeout=timeout,
                max_retries=0,
            )

        return stream_events(open_stream, cursor, reconnect_base, reconnect_max, idle_timeout, stop, on_reconnect)


class Products(_Resource):
    def search(self, **query: Any) -> Paged[Json]:
        """Search (q, brand, category, country, merchant, group, min_price, max_price, currency, limit, offset)."""
        return self._paged(f"{PUB}/products/", query, "publisher", by_offset, "products")

    def lookup(self, **query: Any) -> Paged[Json]:
        """Lookup by ids and/or gtins (comma-separated); follow next_offset: a GTIN may match several merchants."""
        return self._paged(f"{PUB}/products/lookup/", query, "publisher", by_offset, "products")


class Programs(_Resource):
    def list(self, **query: Any) -> Paged[Json]:
        return self._paged(f"{PUB}/programs/", query, "publisher", by_cursor)

    def joinable(self, **query: Any) -> Paged[Json]:
        return self._paged(f"{PUB}/programs/joinable/", query, "publisher", by_cursor)

    def apply(self, program_id: int, campaign_id: Union[int, str, None] = None, *, idempotency_key: Key = None) -> Json:
        """Applies (201 approved, 200 otherwise); sent with an Idempotency-Key, so retries are safe."""
        body = _q({"program_id": program_id, "campaign_id": campaign_id})
        return self._t.call("POST", f"{PUB}/programs/apply/", "publisher", body=body, idempotent=True, idempotency_key=idempotency_key)


class Links(_Resource):
    def list(self, **query: Any) -> Paged[Json]:
        return self._paged(f"{PUB}/links/", query, "publisher", by_cursor)

    def create(
        self,
        program_id: Optional[int] = None,
        campaign_id: Union[int, str, None] = None,
        subid: Optional[str] = None,
        landing_url: Optional[str] = None,
        routes: Optional[List[Json]] = None,
        *,
        fallback: Optional[bool] = None,
        check_landing: Optional[bool] = None,
        idempotency_key: Key = None,
    ) -> Json:
        """Creates a tracking link (or returns the existing one); sent with an Idempotency-Key, so retries are safe.

        routes: smart link rules, tried in order ({"countries": [...], "devices": [...], "landing_url": ...});
        sent, they replace the link's rules ([] removes them).
        fallback: False keeps a dead product link from falling back to the same GTIN at another program.
        check_landing: True has the health check request the landing URL too (off by default).
        Links list filters: ``links.list(health="out_of_stock")``.
        """
        body = _q(
            {
                "program_id": program_id,
                "campaign_id": campaign_id,
                "subid": subid,
                "landing_url": landing_url,
                "routes": routes,
                "fallback": fallback,
                "check_landing": check_landing,
            }
        )
        return self._t.call("POST", f"{PUB}/links/", "publisher", body=body, idempotent=True, idempotency_key=idempotency_key)

    def create_batch(self, links: List[Json], *, idempotency_key: Key = None) -> Json:
        return self._t.call("POST", f"{PUB}/links/batch/", "publisher", body={"links": links}, idempotent=True, idempotency_key=idempotency_key)


class Conversions(_Resource):
    def list(self, **query: Any) -> Paged[Json]:
        """date_from, date_to, subid, status, source, updated_since, page_size."""
        return self._paged(f"{PUB}/conversions/", query, "publisher", by_cursor)


class Clicks(_Resource):
    def list(self, **query: Any) -> Paged[Json]:
        return self._paged(f"{PUB}/clicks/", query, "publisher", by_cursor)


class Payouts(_Resource):
    def list(self, **query: Any) -> Paged[Json]:
        """status, page_size; newest first."""
        return self._paged(f"{PUB}/payouts/", query, "publisher", by_cursor)

    def get(self, payout_id: str) -> Json:
        return self._t.call("GET", f"{PUB}/payouts/{urllib.parse.quote(payout_id, safe='')}/", "publisher")

    def request(self, *, idempotency_key: Key = None) -> Json:
        """The whole available balance in the payout currency (409: below_threshold, payout_hold, no_payout_method, tax_profile_incomplete, payout_in_progress)."""
        return self._t.call("POST", f"{PUB}/payouts/", "publisher", body={}, idempotent=True, idempotency_key=idempotency_key)

    def statement(self, payout_id: str) -> bytes:
        """A paid payout's self-billing statement as PDF bytes (404 statement_not_issued until it is paid)."""
        path = f"{PUB}/payouts/{urllib.parse.quote(payout_id, safe='')}/statement/"
        with self._t.open("GET", path, "publisher", accept="application/pdf") as res:
            return res.read()

    def statement_json(self, payout_id: str) -> Json:
        """The same statement's content: parties, lines, totals, exchange rates, VAT treatment."""
        return self._t.call("GET", f"{PUB}/payouts/{urllib.parse.quote(payout_id, safe='')}/statement/", "publisher", accept="application/json")


class Inquiries(_Resource):
    """Missing-sale inquiries: an order you earned that was not credited, with the platform's click evidence."""

    def file(self, body: Json, *, idempotency_key: Key = None) -> Json:
        """program_id, order_id, occurred_at, amount, currency, optional click_id and note (201 filed; 200 the same order filed before)."""
        return self._t.call("POST", f"{PUB}/inquiries/", "publisher", body=body, idempotent=True, idempotency_key=idempotency_key)

    def list(self, **query: Any) -> Paged[Json]:
        """status, page_size; newest first."""
        return self._paged(f"{PUB}/inquiries/", query, "publisher", by_cursor)

    def get(self, inquiry_id: str) -> Json:
        return self._t.call("GET", f"{PUB}/inquiries/{urllib.parse.quote(inquiry_id, safe='')}/", "publisher")


class Codes(_Resource):
    """Personal coupon codes: one per program you ask for (the program's rules decide its form and whether it is active at once)."""

    def list(self, **query: Any) -> Paged[Json]:
        """program_id, status, page_size; newest first."""
        return self._paged(f"{PUB}/codes/", query, "publisher", by_page_number)

    def request(self, body: Json, *, idempotency_key: Key = None) -> Json:
        """program_id and optional code (201 active or pending_review; 200 you hold it already; 409 code_taken)."""
        return self._t.call("POST", f"{PUB}/codes/", "publisher", body=body, idempotent=True, idempotency_key=idempotency_key)


class Balance(_Resource):
    def transactions(self, **query: Any) -> Paged[Json]:
        """type, currency, page_size; newest first: every movement of the balance."""
        return self._paged(f"{PUB}/balance/transactions/", query, "publisher", by_cursor)


class Postback(_Resource):
    def get(self) -> Json:
        return self._t.call("GET", f"{PUB}/postback/", "publisher")

    def test(self) -> Json:
        """Sends a signed test event to the configured URL."""
        return self._t.call("POST", f"{PUB}/postback/test/", "publisher")

    def deliveries(self, **query: Any) -> Paged[Json]:
        return self._paged(f"{PUB}/postback/deliveries/", query, "publisher", by_cursor)

    def redeliver(self, delivery_id: str) -> Json:
        return self._t.call("POST", f"{PUB}/postback/deliveries/{urllib.parse.quote(delivery_id, safe='')}/redeliver/", "publisher")


class Reporting(_Resource):
    """The reporting-token API (``reporting_token``)."""

    def __init__(self, t: Transport) -> None:
        super().__init__(t)
        self.events = Events(t, REP, "reporting")

    def sales(self, **query: Any) -> Paged[Json]:
        return self._paged(f"{REP}/sales/", query, "reporting", by_cursor)

    def subid_sales(self, **query: Any) -> Paged[Json]:
        return self._paged(f"{REP}/subid-sales/", query, "reporting", by_cursor)

    def summary(self, **query: Any) -> Json:
        return self._get(f"{REP}/summary/", _q(query), "reporting")

    def export_sales(self, **query: Any) -> str:
        """The sales as CSV text."""
        return self._t.call("GET", f"{REP}/sales/export/", "reporting", query=_q(query), accept="text/csv", as_text=True)


class Feeds(_Resource):
    def url(self, **query: Any) -> Json:
        """The account's signed feed URL (country, format): valid 90 days, needs no key to download."""
        return self._get("/api/v1/affiliates/feed/", _q(query), "publisher")

    def download(self, signed_url: str) -> str:
        u = urllib.parse.urlsplit(signed_url)
        return self._t.call("GET", u.path, "none", query=dict(urllib.parse.parse_qsl(u.query)), accept="*/*", as_text=True)


class Monetize(_Resource):
    """Instant monetization: no credential; an application's ``access_secret`` reads it later."""

    def programs(self, **query: Any) -> Paged[Json]:
        return self._paged(f"{MON}/programs/", query, "none", by_page_number)

    def create_links(self, publisher_url: str, placement_description: str, program_ids: Optional[List[int]] = None) -> Json:
        """Provisional links at once (not retried: the endpoint takes no Idempotency-Key)."""
        body = _q({"publisher_url": publisher_url, "placement_description": placement_description, "program_ids": program_ids})
        return self._t.call("POST", f"{MON}/links/", "none", body=body)

    def social_post(self, post_text: str, channel: str, claim_email: Optional[str] = None) -> Json:
        return self._t.call("POST", f"{MON}/social-post/", "none", body=_q({"post_text": post_text, "channel": channel, "claim_email": claim_email}))

    def request(self, application_id: str, access_secret: str) -> Json:
        return self._get(f"{MON}/requests/{urllib.parse.quote(application_id, safe='')}/", {"access_secret": access_secret}, "none")

    def profile(self, application_id: str, access_secret: str) -> Json:
        return self._get(f"{MON}/profile/{urllib.parse.quote(application_id, safe='')}/", {"access_secret": access_secret}, "none")

    def update_profile(self, application_id: str, access_secret: str, **fields: Any) -> Json:
        path = f"{MON}/profile/{urllib.parse.quote(application_id, safe='')}/"
        return self._t.call("PATCH", path, "none", query={"access_secret": access_secret}, body=fields)


class CwClient:
    """The publisher platform. Credentials: ``api_key`` (default CW_API_KEY) or ``access_token`` (a
    string or a TokenProvider such as OAuthTokenProvider) for the publisher API; ``reporting_token``;
    ``offers_credential``. ``base_url`` defaults to CW_BASE_URL."""

    def __init__(
        self,
        api_key: Optional[str] = None,
        base_url: Optional[str] = None,
        *,
        access_token: Union[str, TokenProvider, None] = None,
        reporting_token: Optional[str] = None,
        offers_credential: Optional[str] = None,
        max_retries: int = 3,
        timeout: float = 30.0,
        max_retry_after: float = 60.0,
        on_retry: Optional[Callable[[RetryEvent], None]] = None,
        idempotency_key: Optional[Callable[[], str]] = None,
        user_agent: Optional[str] = None,
    ) -> None:
        t = self.transport = Transport(
            base_url=base_url,
            api_key=api_key,
            access_token=access_token,
            reporting_token=reporting_token,
            offers_credential=offers_credential,
            max_retries=max_retries,
            timeout=timeout,
            max_retry_after=max_retry_after,
            on_retry=on_retry,
            idempotency_key=idempotency_key,
            user_agent=user_agent,
        )
        self.products = Products(t)
        self.programs = Programs(t)
        self.links = Links(t)
        self.conversions = Conversions(t)
        self.clicks = Clicks(t)
        self.postback = Postback(t)
        self.payouts = Payouts(t)
        self.inquiries = Inquiries(t)
        self.codes = Codes(t)
        self.balance = Balance(t)
        self.events = Events(t, PUB, "publisher")
        self.reporting = Reporting(t)
        self.feeds = Feeds(t)
        self.monetize = Monetize(t)

    @property
    def base_url(self) -> str:
        return self.transport.base_url

    def me(self) -> Json:
        """The account, the credential's access and its limits."""
        return self.transport.call("GET", f"{PUB}/me/", "publisher")

    def payment_status(self) -> Json:
        return self.transport.call("GET", f"{PUB}/payment-status/", "publisher")

    def report(self, **query: Any) -> Json:
        """Conversions and commission per group (group_by: day, week, month, subid, campaign, status)."""
        return self.transport.call("GET", f"{PUB}/reports/", "publisher", query=_q(query))

    def offers(self, **query: Any) -> Paged[Json]:
        """Offers pilot (``offers_credential``): country, limit, page."""
        return Paged(lambda q: self.transport.call("GET", f"{PUB}/offers/", "offers", query=q), _q(query), by_page_number)

    def trending_opportunities(self, **query: Any) -> Json:
        return self.transport.call("GET", f"{PUB}/trending-opportunities/", "publisher", query=_q(query))
