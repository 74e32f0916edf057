"""Links derived from records: arXiv, DOI, URL columns; only http(s)."""

from __future__ import annotations

import pytest

from bot.corpus.links import arxiv_url, derive_links, doi_url, http_url, page_url


@pytest.mark.parametrize(
    ("arxiv_id", "expected"),
    [
        pytest.param("2401.01234", "https://arxiv.org/abs/2401.01234", id="new"),
        pytest.param("2401.01234v2", "https://arxiv.org/abs/2401.01234v2", id="version"),
        pytest.param("0706.0001", "https://arxiv.org/abs/0706.0001", id="four-digit"),
        pytest.param("hep-th/9901001", "https://arxiv.org/abs/hep-th/9901001", id="old"),
        pytest.param("math.GT/0309136", "https://arxiv.org/abs/math.GT/0309136", id="old-subject"),
        pytest.param("arXiv:2401.01234", "https://arxiv.org/abs/2401.01234", id="prefixed"),
        pytest.param("https://arxiv.org/pdf/2406.01010", "https://arxiv.org/abs/2406.01010",
                     id="pdf-url"),
        pytest.param("site_8aee33c0ce", None, id="not-arxiv"),
        pytest.param("2401.1", None, id="too-short"),
    ],
)  # fmt: skip
def test_arxiv_id_becomes_abs_link(arxiv_id: str, expected: str | None) -> None:
    assert arxiv_url(arxiv_id) == expected


@pytest.mark.parametrize(
    ("doi", "expected"),
    [
        pytest.param("10.48550/arXiv.2402.05678", "https://doi.org/10.48550/arXiv.2402.05678",
                     id="bare"),
        pytest.param("doi:10.1000/xyz", "https://doi.org/10.1000/xyz", id="doi-prefix"),
        pytest.param("https://doi.org/10.1000/xyz", "https://doi.org/10.1000/xyz", id="url"),
        pytest.param("10.1016/S0550-3213(99)00150-3",
                     "https://doi.org/10.1016/S0550-3213(99)00150-3", id="parentheses"),
        pytest.param("10.1000/a b", None, id="space-inside"),
        pytest.param("11.1000/x", None, id="not-a-doi"),
    ],
)  # fmt: skip
def test_doi_becomes_doi_org_link(doi: str, expected: str | None) -> None:
    assert doi_url(doi) == expected


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        pytest.param("https://icml.cc/virtual/2025/poster/46346", True, id="https"),
        pytest.param("http://example.org/x.pdf", True, id="http"),
        pytest.param("javascript:alert(1)", False, id="javascript"),
        pytest.param("ftp://example.org/x", False, id="ftp"),
        pytest.param("/pdf/abc.pdf", False, id="relative"),
        pytest.param("https://exa mple.org", False, id="space"),
        pytest.param("https://", False, id="no-host"),
        pytest.param("https://[::1", False, id="bad-ipv6"),
    ],
)
def test_only_absolute_http_urls_are_links(value: str, ok: bool) -> None:
    assert (http_url(value) is not None) is ok


def test_derive_links_labels_and_dedupes() -> None:
    links = derive_links(
        {
            "url": "https://icml.cc/virtual/2025/poster/1",
            "pdf": "https://example.org/paper.pdf",
            "code": "https://github.com/a/b",
        },
        arxiv_id="2401.01234",
        doi="10.1000/xyz",
        extra=["https://github.com/a/b", "https://example.org/project"],
    )
    assert links == (
        ("Page", "https://icml.cc/virtual/2025/poster/1"),
        ("PDF", "https://example.org/paper.pdf"),
        ("Code", "https://github.com/a/b"),
        ("arXiv", "https://arxiv.org/abs/2401.01234"),
        ("DOI", "https://doi.org/10.1000/xyz"),
        ("Page", "https://example.org/project"),
    )


def test_derive_links_drops_unsafe_values() -> None:
    assert derive_links({"url": "javascript:alert(1)", "pdf": ""}, arxiv_id="nope") == ()


@pytest.mark.parametrize(
    ("links", "expected"),
    [
        pytest.param((("arXiv", "https://a/1"), ("PDF", "https://p/1"), ("Page", "https://g/1"),
                      ("Page", "https://g/2")), "https://g/1", id="first-page"),
        pytest.param((("arXiv", "https://a/1"), ("PDF", "https://p/1")), "https://p/1", id="pdf"),
        pytest.param((("Code", "https://c/1"), ("DOI", "https://d/1")), "https://c/1", id="first"),
        pytest.param((), "", id="none"),
    ],
)  # fmt: skip
def test_page_url_prefers_the_page(links: tuple[tuple[str, str], ...], expected: str) -> None:
    assert page_url(links) == expected
