"""The Python SDK against the real local platform (CW_BASE_URL, CW_API_KEY, CW_TEST_CREDENTIALS:
the platform's credentials file). Run: python3 -m unittest discover -s tests -v"""
from __future__ import annotations

import json
import re
import threading
import time
import unittest
import urllib.error
import urllib.request
from typing import Any, Dict, List

import cw_sdk
from cw_sdk import CwApiError, CwClient, PostbackVerificationError, generate_postback_secret, verify_postback

from .helpers import CutProxy, Receiver, base_url, click, credentials, http_json, report_sale, set_sale_status, until


def pub() -> Dict[str, Any]:
    return credentials()["publishers"][0]


def raw(path: str, headers: Dict[str, str]) -> Dict[str, Any]:
    with urllib.request.urlopen(urllib.request.Request(base_url() + path, headers=headers), timeout=30) as res:
        return json.loads(res.read().decode())


def walk_raw(path: str, kind: str, headers: Dict[str, str]) -> List[Any]:
    """A list walked through plain HTTP by page number (or offset, or cursor for the events feed)."""
    items: List[Any] = []
    n, offset, cursor = 1, 0, None
    sep = "&" if "?" in path else "?"
    for _ in range(500):
        at = {"page": f"page={n}", "offset": f"offset={offset}", "events": f"cursor={cursor}" if cursor else ""}[kind]
        page = raw(f"{path}{sep}{at}" if at else path, headers)
        items.extend(page.get("data") or page.get("products") or [])
        if kind in ("page", "events") and not page["has_more"]:
            return items
        if kind == "offset" and page["next_offset"] is None:
            return items
        n, offset, cursor = n + 1, page.get("next_offset"), page.get("next_cursor")
    raise AssertionError("the list did not end")


class Environment(unittest.TestCase):
    def test_takes_key_and_base_url_from_the_environment(self) -> None:
        me = CwClient().me()
        self.assertEqual(me["account_id"], pub()["account_id"])
        self.assertEqual(cw_sdk.__version__, "0.1.0")


class Lists(unittest.TestCase):
    def test_every_list_iterated_to_its_end_equals_the_api_pages(self) -> None:
        cw = CwClient(reporting_token=pub()["reporting_token"])
        key = {"X-API-Key": pub()["keys"]["live"]}
        rpt = {"Authorization": f"Bearer {pub()['reporting_token']}"}
        cases = [
            ("links", cw.links.list(page_size=10), walk_raw("/api/v1/publisher/links/?page_size=10", "page", key), 10),
            ("conversions", cw.conversions.list(page_size=50), walk_raw("/api/v1/publisher/conversions/?page_size=50", "page", key), 50),
            ("clicks", cw.clicks.list(page_size=200), walk_raw("/api/v1/publisher/clicks/?page_size=200", "page", key), 200),
            ("programs", cw.programs.list(page_size=1, include_available=True), walk_raw("/api/v1/publisher/programs/?page_size=1&include_available=true", "page", key), 1),
            ("events", cw.events.list(limit=50), walk_raw("/api/v1/publisher/events/?limit=50", "events", key), 50),
            ("products", cw.products.search(country="DE", limit=40), walk_raw("/api/v1/publisher/products/?country=DE&limit=40", "offset", key), 40),
            ("reporting sales", cw.reporting.sales(page_size=50), walk_raw("/api/v1/affiliate-reporting/sales/?page_size=50", "page", rpt), 50),
            ("reporting events", cw.reporting.events.list(limit=50), walk_raw("/api/v1/affiliate-reporting/events/?limit=50", "events", rpt), 50),
        ]
        for name, paged, want, page_size in cases:
            with self.subTest(name):
                self.assertGreater(len(want), page_size)
                self.assertEqual(list(paged), want)

    def test_first_page_is_one_request(self) -> None:
        page = CwClient().links.list(page_size=2).first_page()
        self.assertEqual(len(page["data"]), 2)
        self.assertIsInstance(page["next_cursor"], str)


class Errors(unittest.TestCase):
    def test_carry_code_detail_request_id_and_the_parameter(self) -> None:
        with self.assertRaises(CwApiError) as caught:
            CwClient().conversions.list(status="bogus").first_page()
        e = caught.exception
        self.assertEqual((e.status, e.code), (400, "invalid_parameter"))
        self.assertIn("status", e.detail)
        self.assertRegex(e.request_id or "", r"^req_")
        self.assertIn("status", [p["param"] for p in e.errors])

    def test_a_401_is_not_retried(self) -> None:
        retries: List[Any] = []
        with self.assertRaises(CwApiError) as caught:
            CwClient(api_key="live_" + "A" * 43, on_retry=retries.append).me()
        self.assertEqual((caught.exception.status, caught.exception.code), (401, "not_authenticated"))
        self.assertEqual(retries, [])

    def test_a_surface_without_its_credential_says_which_it_needs(self) -> None:
        with self.assertRaises(CwApiError) as caught:
            CwClient().reporting.summary()
        self.assertEqual(caught.exception.code, "missing_credential")


class Retries(unittest.TestCase):
    def test_a_429_is_retried_after_its_retry_after(self) -> None:
        # Spend the offers budget (the launcher sets RATELIMIT_OFFERS_PER_MIN low) until it refuses.
        country = credentials()["fixtures"]["country"]
        for _ in range(100):
            try:
                raw(f"/api/v1/publisher/offers/?country={country}", {"Authorization": f"Bearer {pub()['offers_credential']}"})
            except urllib.error.HTTPError as e:
                self.assertEqual(e.code, 429)
                break
        retries: List[cw_sdk.RetryEvent] = []
        cw = CwClient(offers_credential=pub()["offers_credential"], on_retry=retries.append)
        started = time.time()
        page = cw.offers(country=country).first_page()
        self.assertIsInstance(page["data"], list)
        self.assertGreaterEqual(len(retries), 1)
        self.assertEqual(retries[0].status, 429)
        self.assertGreater(retries[0].retry_after or 0, 0)
        self.assertGreaterEqual(retries[0].delay, retries[0].retry_after)
        self.assertGreaterEqual(time.time() - started, retries[0].retry_after)

    def test_a_link_creation_cut_before_its_answer_is_retried_under_the_same_key_one_link(self) -> None:
        proxy = CutProxy(base_url())
        try:
            cuts = []
            proxy.plan = lambda head: "drop" if head.startswith("POST /api/v1/publisher/links/") and not cuts and not cuts.append(1) else None
            retries: List[cw_sdk.RetryEvent] = []
            subid = f"pycut-{time.time_ns()}"
            link = CwClient(base_url=proxy.url, on_retry=retries.append).links.create(program_id=credentials()["fixtures"]["approved_program_id"], subid=subid)
            self.assertEqual([r.code for r in retries], ["network_error"])
            keys = [re.search(r"(?i)idempotency-key: (\S+)", h).group(1) for h in proxy.requests if h.startswith("POST")]
            self.assertEqual(len(keys), 2)
            self.assertEqual(keys[0], keys[1])
            listed = raw(f"/api/v1/publisher/links/?subid={subid}", {"X-API-Key": pub()["keys"]["live"]})
            self.assertEqual(listed["data"], [link])
        finally:
            proxy.close()

    def test_a_link_takes_its_fallback_and_landing_check_switches_and_lists_by_health(self) -> None:
        cw = CwClient()
        subid = f"pyhealth-{time.time_ns()}"
        link = cw.links.create(program_id=credentials()["fixtures"]["approved_program_id"], subid=subid, fallback=False, check_landing=True)
        self.assertEqual((link["fallback"], link["check_landing"], link["health"]["state"]), (False, True, "ok"))
        healthy = [l["id"] for l in cw.links.list(health="ok", page_size=100)]
        self.assertIn(link["id"], healthy)
        with self.assertRaises(CwApiError) as caught:
            cw.links.list(health="sunny").first_page()
        self.assertEqual((caught.exception.status, caught.exception.code), (400, "invalid_parameter"))

    def test_a_write_the_server_cannot_deduplicate_is_never_retried(self) -> None:
        proxy = CutProxy(base_url())
        try:
            proxy.plan = lambda head: "drop" if head.startswith("POST") else None
            with self.assertRaises(CwApiError) as caught:
                CwClient(base_url=proxy.url).monetize.create_links("https://my-blog.example", "gear list in my running blog")
            self.assertEqual((caught.exception.status, caught.exception.code), (0, "network_error"))
            self.assertEqual(len([h for h in proxy.requests if h.startswith("POST")]), 1)
        finally:
            proxy.close()


class VerifyPostback(unittest.TestCase):
    receiver: Receiver
    secret: str

    @classmethod
    def setUpClass(cls) -> None:
        cls.receiver = Receiver()
        ptl = {"Authorization": f"Bearer {pub()['portal_token']}"}
        config = http_json("PUT", f"{base_url()}/api/v1/publisher/postback/", ptl, {"url": f"{cls.receiver.url}/postback", "http_method": "POST"})
        cls.secret = config.get("secret") or http_json("POST", f"{base_url()}/api/v1/publisher/postback/secret/", ptl)["secret"]

    @classmethod
    def tearDownClass(cls) -> None:
        cls.receiver.close()

    def reason(self, *args: Any, **kwargs: Any) -> str:
        try:
            verify_postback(*args, **kwargs)
            return "accepted"
        except PostbackVerificationError as e:
            return e.reason

    def test_accepts_a_real_postback_and_refuses_tampering_old_timestamps_and_wrong_secrets(self) -> None:
        before = len(self.receiver.received)
        CwClient().postback.test()
        got = until(lambda: next((r for r in self.receiver.received[before:] if r["path"] == "/postback"), None))
        event = verify_postback(got["headers"], got["body"], [self.secret])
        self.assertEqual((event["type"], event.get("test")), ("sale.created", True))
        self.assertEqual(self.reason(got["headers"], got["body"].replace(b"sale.created", b"sale.approved"), [self.secret]), "no_matching_signature")
        self.assertEqual(self.reason(got["headers"], got["body"], [self.secret], now=time.time() + 600), "timestamp_outside_tolerance")
        self.assertEqual(self.reason(got["headers"], got["body"], [generate_postback_secret()]), "no_matching_signature")
        self.assertEqual(self.reason(got["headers"], got["body"], [generate_postback_secret(), self.secret]), "accepted")
        self.assertEqual(self.reason({k: v for k, v in got["headers"].items() if k.lower() != "x-cw-signature"}, got["body"], self.secret), "missing_header")

    def test_accepts_a_merchants_real_sale(self) -> None:
        conversion = report_sale(click("py-verify"))
        got = until(lambda: next((r for r in self.receiver.received if conversion.encode() in r["body"]), None))
        headers = {k: v for k, v in got["headers"].items()}
        event = verify_postback(headers, got["body"].decode(), self.secret)
        self.assertEqual((event["type"], event["conversion"]["id"], event["conversion"]["subid"]), ("sale.created", conversion, "py-verify"))


class EventsStream(unittest.TestCase):
    def test_resumes_after_a_cut_connection_from_the_last_cursor_nothing_twice(self) -> None:
        proxy = CutProxy(base_url())
        stop = threading.Event()
        try:
            streams: List[int] = []

            def plan(head: str) -> Any:
                if "/events/stream/" not in head:
                    return None
                streams.append(1)
                return (lambda sent: b"\nid: " in b"\n" + sent) if len(streams) == 1 else None

            proxy.plan = plan
            cw = CwClient(base_url=proxy.url)
            cursor = cw.events.latest_cursor()
            seen: List[cw_sdk.StreamedEvent] = []
            reconnects: List[Dict[str, Any]] = []

            def read() -> None:
                for e in cw.events.stream(cursor, stop=stop, reconnect_base=0.05, on_reconnect=reconnects.append):
                    seen.append(e)
                    if len(seen) == 2:
                        stop.set()

            reader = threading.Thread(target=read, daemon=True)
            reader.start()
            conversion = report_sale(click("py-stream"))
            until(lambda: True if seen else None)
            set_sale_status(conversion, "approved")
            reader.join(20)
            self.assertEqual([(e.type, e.event["conversion"]["id"]) for e in seen], [("sale.created", conversion), ("sale.approved", conversion)])
            self.assertGreaterEqual(len(reconnects), 1)
            self.assertEqual(reconnects[0]["cursor"], seen[0].cursor)
            heads = [h for h in proxy.requests if "/events/stream/" in h]
            self.assertRegex(heads[0], f"(?i)last-event-id: {re.escape(cursor)}")
            self.assertRegex(heads[1], f"(?i)last-event-id: {re.escape(seen[0].cursor)}")
        finally:
            stop.set()
            proxy.close()


if __name__ == "__main__":
    unittest.main()
