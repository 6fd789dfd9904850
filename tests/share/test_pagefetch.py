"""The guarded page fetch: public http(s) pages only, checked at every connection and every
redirect, capped in size and time, with no cookies. Names resolve through a fake lookup; the
stand-in site listens on 127.0.0.1, which only `allow_site` lets through."""

from __future__ import annotations

import pytest

from commonplace.capture.pagefetch import FetchRefused, check_url, fetch_page
from tests.push.resolver import FakeResolver
from tests.share.conftest import Site, allow_site

NAMES = {
    "news.example": ["127.0.0.1"],  # the stand-in site, allowed by allow_site
    "intranet.example": ["10.0.0.5"],
    "router.example": ["192.168.1.1"],
    "metadata.example": ["169.254.169.254"],
    "self.example": ["127.0.0.1", "::1"],
    "mixed.example": ["10.0.0.7"],
    "tailnet.example": ["100.101.102.103"],
}


async def fetch(url: str, *, rule: bool = True, max_kb: int = 64, timeout_s: float = 30.0) -> str:
    page = await fetch_page(
        url,
        max_bytes=max_kb * 1024,
        timeout_s=timeout_s,
        resolver=FakeResolver(NAMES),
        **({"reason": allow_site} if rule else {}),
    )
    return page.text


async def test_a_public_page_is_fetched(site: Site) -> None:
    text = await fetch(f"http://news.example:{site.port}/p/article")
    assert "Prune roses in late winter" in text
    assert site.hits == ["/p/article"]


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:{port}/p/article",
        "http://[::1]:{port}/p/article",
        "http://[::ffff:127.0.0.1]:{port}/p/article",
        "http://localhost:{port}/p/article",
        "http://10.0.0.5/",
        "http://192.168.1.1/admin",
        "http://169.254.169.254/latest/meta-data/",
        "http://[fe80::1]/",
        "http://100.100.100.100/",
        "http://metadata.google.internal/computeMetadata/v1/",
    ],
)
async def test_addresses_that_are_not_public_are_refused_before_any_connection(
    site: Site, url: str
) -> None:
    with pytest.raises(FetchRefused):
        await fetch(url.format(port=site.port), rule=False)
    assert site.hits == []


@pytest.mark.parametrize(
    ("host", "why"),
    [
        ("intranet.example", "private"),
        ("router.example", "private"),
        ("metadata.example", "link-local"),
        ("self.example", "loopback"),
        ("tailnet.example", "tailnet"),
    ],
)
async def test_names_that_resolve_to_internal_addresses_are_refused_when_connecting(
    site: Site, host: str, why: str
) -> None:
    with pytest.raises(FetchRefused, match=why):
        await fetch(f"http://{host}:{site.port}/p/article", rule=False)
    assert site.hits == []


@pytest.mark.parametrize(
    "target",
    [
        "http://169.254.169.254/latest/meta-data/",
        "http://127.0.0.2:{port}/p/article",
        "http://intranet.example:{port}/p/article",
        "http://metadata.example/",
        "file:///etc/passwd",
        "ftp://news.example/p/article",
    ],
)
async def test_a_redirect_to_an_internal_address_or_another_scheme_is_refused(
    site: Site, target: str
) -> None:
    to = target.format(port=site.port)
    with pytest.raises(FetchRefused):
        await fetch(f"http://news.example:{site.port}/p/to?url={to}")
    assert site.hits == ["/p/to"]  # the redirect was read; nothing behind it was asked


async def test_a_redirect_to_a_public_page_is_followed(site: Site) -> None:
    assert "Prune roses" in await fetch(f"http://news.example:{site.port}/p/hop")
    assert site.hits == ["/p/hop", "/p/article"]


@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/passwd",
        "ftp://news.example/",
        "javascript:alert(1)",
        "gopher://news.example/",
        "data:text/html,hi",
        "news.example",
    ],
)
def test_only_http_and_https_links_are_fetched(url: str) -> None:
    with pytest.raises(FetchRefused):
        check_url(url)


@pytest.mark.parametrize("name", ["big", "big-chunked"])
async def test_an_oversized_page_is_refused(site: Site, name: str) -> None:
    with pytest.raises(FetchRefused, match="over 64 KB"):
        await fetch(f"http://news.example:{site.port}/p/{name}", max_kb=64)


async def test_something_that_is_not_a_page_is_refused(site: Site) -> None:
    with pytest.raises(FetchRefused, match="not a web page"):
        await fetch(f"http://news.example:{site.port}/p/pdf")


async def test_a_page_that_does_not_answer_is_given_up(site: Site) -> None:
    with pytest.raises(FetchRefused, match="did not answer"):
        await fetch(f"http://news.example:{site.port}/p/slow", timeout_s=0.5)


async def test_no_cookie_is_kept_or_sent(site: Site) -> None:
    await fetch(f"http://news.example:{site.port}/p/set-cookie")
    assert site.hits == ["/p/set-cookie", "/p/echo"]
    assert site.cookies == ["", ""]
