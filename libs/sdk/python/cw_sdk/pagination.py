"""Lists: iterating a list walks every item to its end (by ``next_cursor``, ``next_offset`` or the
next page number, as the list pages); ``first_page()`` is one request."""
from __future__ import annotations

from typing import Any, Callable, Dict, Generic, Iterator, List, Optional, TypeVar

T = TypeVar("T")
Page = Dict[str, Any]
Params = Dict[str, Any]


class Paged(Generic[T]):
    def __init__(self, fetch: Callable[[Params], Page], params: Params, next_params: Callable[[Page, Params], Optional[Params]], items_key: str = "data") -> None:
        self._fetch = fetch
        self._params = dict(params)
        self._next = next_params
        self._items_key = items_key
        self._first: Optional[Page] = None

    def first_page(self) -> Page:
        if self._first is None:
            self._first = self._fetch(self._params)
        return self._first

    def pages(self) -> Iterator[Page]:
        """Every page, in order, the first one included."""
        params: Optional[Params] = self._params
        page = self.first_page()
        while True:
            yield page
            params = self._next(page, params or {})
            if params is None:
                return
            page = self._fetch(params)

    def __iter__(self) -> Iterator[T]:
        for page in self.pages():
            yield from page.get(self._items_key) or []

    def to_list(self) -> List[T]:
        return list(self)


def by_cursor(page: Page, params: Params) -> Optional[Params]:
    cursor = page.get("next_cursor")
    if not cursor:
        return None
    nxt = {k: v for k, v in params.items() if k != "page"}
    nxt["cursor"] = cursor
    return nxt


def by_event_cursor(page: Page, params: Params) -> Optional[Params]:
    return {**params, "cursor": page["next_cursor"]} if page.get("has_more") else None


def by_offset(page: Page, params: Params) -> Optional[Params]:
    return None if page.get("next_offset") is None else {**params, "offset": page["next_offset"]}


def by_page_number(page: Page, params: Params) -> Optional[Params]:
    return {**params, "page": int(page.get("page") or params.get("page") or 1) + 1} if page.get("has_more") else None
