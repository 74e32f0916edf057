"""The conference site's programme feed: posters and orals become papers with their
presentations, tiers and institutions; other events never do; abstracts come from the sidecar."""

from __future__ import annotations

import json
import shutil
from datetime import timedelta
from pathlib import Path

import pytest

from bot.corpus import CorpusError, LoadReport, Paper, PaperIds, StrictCorpusError, load_corpus
from testkit.paths import TEST_DATA
from testkit.programme import NOT_PAPERS, authors_of, feed_event, synthetic_programme, write_feed

PROGRAMME = TEST_DATA / "programme"
ICML = PROGRAMME / "icml-2026-orals-posters.json"
NEURIPS = PROGRAMME / "neurips-2025-orals-posters.json"
ICLR = PROGRAMME / "iclr-2024-orals-posters.json"


def by_source_id(report: LoadReport) -> dict[str, Paper]:
    return {paper.source_id: paper for paper in report.papers}


@pytest.fixture(scope="module")
def icml() -> LoadReport:
    return load_corpus([ICML])


@pytest.fixture(scope="module")
def papers(icml: LoadReport) -> dict[str, Paper]:
    return by_source_id(icml)


def test_posters_and_orals_are_papers_other_events_are_counted(icml: LoadReport) -> None:
    assert len(icml.papers) == 21  # 20 posters and the oral without one; 4 orals merged
    titles = {paper.title for paper in icml.papers}
    assert not any(t.startswith(("Invited Talk", "Tutorial", "Workshop")) for t in titles)
    assert "Queer in AI Social" not in titles
    assert icml.merged == 4 and icml.bad_records == 0
    assert any(
        line.endswith(
            "6 events that are not papers (2 Invited Talk, 1 Tutorial, 1 Workshop, 1 Social, "
            "1 Expo Talk Panel), not read"
        )
        for line in icml.skipped
    )


def test_the_report_names_what_was_not_loaded_before_the_merged_orals(icml: LoadReport) -> None:
    first, *shown, more = icml.notes(shown=1)
    assert first == f"corpus: {icml.summary()}" and "4 versions merged" in first
    assert not any(line.endswith(", merged") for line in shown)  # the skips a user must see
    assert any("events that are not papers" in line for line in shown)
    assert more == f"  … and {len(icml.skipped) - 1} more"
    assert icml.skipped[-4:] == tuple(line for line in icml.skipped if line.endswith(", merged"))


def test_a_poster_carries_its_fields(papers: dict[str, Paper]) -> None:
    paper = papers["AbCdEf1234"]  # the OpenReview forum id: `/paper AbCdEf1234` finds it
    assert paper.title == "Sparse Routers Without Collapse"
    assert paper.authors == ("Ana Example", "Bo Sample")
    assert paper.affiliations == ("Example University", "")  # a null institution is unknown
    assert paper.institutions == ("Example University",)
    assert paper.topic == "Deep Learning->Large Language Models"
    assert paper.keywords == ("mixture of experts", "routing")
    assert (paper.venue, paper.year, paper.status, paper.tier) == (
        "ICML 2026",
        2026,
        "oral",
        "oral",
    )
    assert paper.links == (
        ("Page", "https://icml.cc/virtual/2026/poster/41001"),
        ("OpenReview", "https://openreview.net/forum?id=AbCdEf1234"),
    )
    assert set(paper.aliases) == {"41001", "51001"}  # both event ids


def test_pdf_link_and_an_event_id_when_there_is_no_forum(papers: dict[str, Paper]) -> None:
    assert ("PDF", "https://openreview.net/pdf?id=PgHt0009Xy") in papers["PgHt0009Xy"].links
    no_forum = papers["41008"]  # paper_url null: the event id is the paper's id
    assert no_forum.title == "Neural Operators for Ocean Forecasting"
    assert [label for label, _ in no_forum.links] == ["Page"]
    assert (no_forum.topic, no_forum.keywords) == ("", ())


def test_event_and_forum_ids_find_the_paper(icml: LoadReport) -> None:
    ids = PaperIds.build((p.id, p.source_id, p.aliases) for p in icml.papers)
    paper = by_source_id(icml)["TtSlr0017n"]
    for typed in ("TtSlr0017n", "41017", "51004", "/paper_41017"):
        assert ids.find(typed) == paper.id


def test_abstracts_from_the_sidecar_without_html_or_latex(papers: dict[str, Paper]) -> None:
    assert papers["AbCdEf1234"].abstract == (
        "Sparse mixture-of-experts routers collapse onto a few experts & waste capacity. We show"
        " that a prior on expert use keeps them balanced, with regret O(√(T log K)). On C4,"
        " routing entropy stays within 5 % of uniform."
    )
    assert papers["CcPls0002a"].abstract.startswith(
        "Conformal prediction guarantees coverage ≥ 1−α only when test labels follow the"
        " calibration distribution. We reweight"
    )
    assert papers["GnnCc0013j"].abstract == (
        "Message-passing graph neural networks cannot count cycles longer than six. We prove"
        " it with a new colour-refinement argument."
    )
    assert papers["PgHt0009Xy"].abstract.endswith("show optimal rates for α-stable rewards.")
    assert not any("<" in p.abstract or "&amp;" in p.abstract for p in papers.values())


def test_a_paper_without_any_abstract_is_still_a_paper(papers: dict[str, Paper]) -> None:
    paper = papers["DpLra0007f"]  # no abstract in the feed or the sidecar
    assert (paper.title, paper.abstract) == ("Differentially Private Low-Rank Adaptation", "")
    assert paper.tier == "poster"  # "Accept (regular)"


@pytest.mark.parametrize(
    ("source_id", "tier"),
    [
        ("CcPls0002a", "spotlight"),
        ("BoCas0014k", "spotlight"),
        ("SpFlt0003b", "poster"),
        ("41008", "poster"),
        ("51005", "oral"),
    ],
)
def test_tier_from_the_decision_else_the_event(
    papers: dict[str, Paper], source_id: str, tier: str
) -> None:
    assert papers[source_id].tier == tier


@pytest.mark.parametrize(
    ("source_id", "oral_event"),
    [
        pytest.param("AbCdEf1234", "51001", id="related-both-ways"),
        pytest.param("DfSmp0005d", "51002", id="related-null-same-title"),
        pytest.param("SpDec0006e", "51003", id="related-empty-title-case-and-dot"),
        pytest.param("TtSlr0017n", "51004", id="only-the-oral-names-its-poster"),
    ],
)
def test_an_oral_merges_into_its_posters_paper(
    papers: dict[str, Paper], source_id: str, oral_event: str
) -> None:
    paper = papers[source_id]
    assert [p.kind for p in paper.presentations] == ["oral", "poster"]  # the oral comes first
    assert paper.presentations[0].event == oral_event
    assert paper.tier == "oral"
    starts = [p.starts_at for p in paper.presentations]
    assert starts == sorted(starts)  # type: ignore[type-var]


def test_an_oral_without_a_poster_is_its_own_paper(papers: dict[str, Paper]) -> None:
    paper = papers["51005"]
    assert paper.title == "Learning to Route Tokens Across Devices"
    assert [(p.kind, p.session, p.room) for p in paper.presentations] == [
        ("oral", "Oral 4C Systems", "West Ballroom C")
    ]
    assert paper.abstract.startswith("We learn to place token routing")  # sidecar, oral's id
    assert paper.links == (("Page", "https://icml.cc/virtual/2026/oral/51005"),)


def test_the_merged_orals_are_reported_as_merged(icml: LoadReport) -> None:
    merged = [line for line in icml.skipped if line.endswith(", merged")]
    assert merged == [
        f"{ICML}:1061: the oral of the poster at line 6, merged",
        f"{ICML}:1115: the oral of the poster at line 225, merged",
        f"{ICML}:1167: the oral of the poster at line 277, merged",
        f"{ICML}:1219: the oral of the poster at line 859, merged",
    ]


def test_a_presentation_as_the_feed_gives_it(papers: dict[str, Paper]) -> None:
    (shown,) = papers["CcPls0002a"].presentations
    assert (shown.kind, shown.session, shown.room, shown.position, shown.event) == (
        "poster", "Poster Session 1", "East Exhibition Hall A-B", "E-1101", "41002",
    )  # fmt: skip
    assert (shown.start, shown.end) == ("2026-07-14T11:00:00+09:00", "2026-07-14T13:30:00+09:00")
    assert shown.starts_at is not None and shown.starts_at.utcoffset() == timedelta(hours=9)
    assert shown.starts_at.hour == 11  # the venue's local time, not converted


def test_presentations_are_listed_only_with_a_time_or_a_place(papers: dict[str, Paper]) -> None:
    (off_site,) = papers["KtsTf0004c"].presentations  # accepted, not presented on site
    assert (off_site.kind, off_site.session, off_site.start, off_site.event) == (
        "poster", "", "", "41004",
    )  # fmt: skip
    (no_session,) = papers["SpFlt0003b"].presentations
    assert no_session.session == "" and no_session.room == "West Exhibition Hall B2-B3"
    (board_only,) = papers["MoErt0020q"].presentations
    assert (board_only.position, board_only.start, board_only.starts_at) == ("E-1150", "", None)
    (no_end,) = papers["CpScg0015l"].presentations
    assert no_end.end == "" and no_end.ends_at is None and no_end.starts_at is not None


def test_event_type_in_either_field_and_any_case(papers: dict[str, Paper]) -> None:
    assert papers["CdIts0011h"].presentations[0].kind == "poster"  # eventtype "poster"
    assert papers["FoStg0012i"].presentations[0].kind == "poster"  # only event_type


def test_authors_without_a_name_are_left_out_with_their_institution(
    papers: dict[str, Paper],
) -> None:
    paper = papers["OrlSd0016m"]
    assert paper.authors == ("Mateo Silva", "Rosa Novak")
    assert paper.affiliations == ("Universidade de São Paulo", "Charles University")
    repeated = papers["SpDec0006e"]  # one author listed twice
    assert repeated.authors == ("Wei Zhang", "Sofia Rossi")
    assert repeated.affiliations == ("Peking University", "Bocconi University")
    assert papers["IclBi0010g"].affiliations == ()  # every institution null


def test_a_sidecar_as_a_list_of_id_and_abstract() -> None:
    report = load_corpus([NEURIPS])
    papers = by_source_id(report)
    assert len(papers) == 6
    assert papers["SaeSl1180a"].abstract.startswith("Sparse autoencoders trained on language")
    assert papers["VlmNg1180e"].abstract == (
        "Vision-language models ignore not in captions; we build a benchmark and a fix."
    )  # the oral's id in the sidecar
    assert papers["CrGtr1180f"].abstract == ""  # a null abstract in the sidecar
    assert papers["SaeSl1180a"].tier == "oral"
    assert ("Page", "https://neurips.cc/virtual/2025/poster/118001") in papers["SaeSl1180a"].links
    assert {(p.venue, p.year) for p in report.papers} == {("NeurIPS 2025", 2025)}
    assert papers["118004"].presentations[0].start == "2025-12-04T11:00:00-08:00"


def test_an_older_feed_carries_its_abstracts_itself() -> None:
    papers = by_source_id(load_corpus([ICLR]))
    assert len(papers) == 5
    assert papers["UtSt17001a"].abstract == (
        "One tokenizer for speech & text lets a single model transcribe and speak."
    )
    assert papers["LsPr17004d"].abstract == ""
    assert papers["AsSl17005e"].abstract.startswith("Keeping the first tokens' keys as attention")
    assert papers["AsSl17005e"].venue == "ICLR 2024"
    assert [p.room for p in papers["AsSl17005e"].presentations] == ["Halle A 7", "Halle B"]


def test_the_feed_is_known_by_its_content_not_its_name(tmp_path: Path) -> None:
    renamed = tmp_path / "programme-export.json"
    shutil.copy(ICML, renamed)
    report = load_corpus([renamed])
    assert len(report.papers) == 21  # no sidecar beside it: titles only
    assert all(paper.abstract == "" for paper in report.papers)
    paper = by_source_id(report)["AbCdEf1234"]
    assert (paper.venue, paper.year) == ("ICML 2026", 2026)  # from the events' sourceurl
    assert paper.links[0] == ("Page", "https://icml.cc/virtual/2026/poster/41001")


def test_in_a_folder_the_sidecar_is_read_with_its_feed_not_as_papers(tmp_path: Path) -> None:
    for name in ("icml-2026-orals-posters.json", "icml-2026-abstracts.json"):
        shutil.copy(PROGRAMME / name, tmp_path / name)
    report = load_corpus([tmp_path])
    assert len(report.papers) == 21 and report.bad_records == 0
    alone = load_corpus([tmp_path / "icml-2026-orals-posters.json"])
    assert [p.abstract for p in report.papers] == [p.abstract for p in alone.papers]
    assert any(paper.abstract for paper in report.papers)
    assert report.sources == (str(tmp_path / "icml-2026-orals-posters.json"),)
    assert not any("abstracts.json" in line for line in report.skipped)  # read, not skipped
    assert report.not_loaded == alone.not_loaded  # as the feed named alone: nothing more


def test_a_sidecar_without_its_feed_is_named_as_not_read(tmp_path: Path) -> None:
    shutil.copy(PROGRAMME / "icml-2026-abstracts.json", tmp_path / "icml-2026-abstracts.json")
    shutil.copy(PROGRAMME / "icml-2026-orals-posters.json", tmp_path / "feed-export.json")
    report = load_corpus([tmp_path])  # its feed renamed: nothing reads it, so the report says
    assert any("icml-2026-abstracts.json" in line for line in report.skipped)


def test_an_unreadable_sidecar_leaves_papers_without_abstracts(tmp_path: Path) -> None:
    shutil.copy(ICML, tmp_path / ICML.name)
    (tmp_path / "icml-2026-abstracts.json").write_text('{"41001": "cut', encoding="utf-8")
    report = load_corpus([tmp_path / ICML.name])
    assert len(report.papers) == 21 and not any(p.abstract for p in report.papers)
    assert any("abstracts sidecar icml-2026-abstracts.json not read" in s for s in report.skipped)


def _feed(tmp_path: Path, events: list[dict], **header: object) -> Path:
    path = write_feed(tmp_path, events, None, conference="icml", year=2026)
    if header:
        feed = json.loads(path.read_text(encoding="utf-8"))
        path.write_text(json.dumps({**feed, **header}), encoding="utf-8")
    return path


def test_one_bad_event_never_sinks_the_feed(tmp_path: Path) -> None:
    good = feed_event(1, "A Good Poster", "Poster", authors=authors_of([("Al Good", None)]))
    empty = feed_event(2, None, "Poster")  # no title and no abstract
    path = _feed(tmp_path, [good, "not an event", empty])  # type: ignore[list-item]
    report = load_corpus([path])
    assert [p.title for p in report.papers] == ["A Good Poster"]
    assert report.bad_records == 2
    with pytest.raises(StrictCorpusError):
        load_corpus([path], strict=True)


def test_non_paper_events_are_not_bad_records(tmp_path: Path) -> None:
    events = [feed_event(1, "A Poster", "Poster"), feed_event(2, "Opening Remarks", "Talk")]
    report = load_corpus([_feed(tmp_path, events)], strict=True)  # strict: nothing refused
    assert [p.title for p in report.papers] == ["A Poster"]
    assert report.skipped[-1].endswith("1 event that is not a paper (1 Talk), not read")


@pytest.mark.parametrize(
    ("header", "note"),
    [
        pytest.param({"count": 6799}, "the feed counts 6,799 events but holds 1", id="short"),
        pytest.param({"next": "https://icml.cc/x?page=2"}, "one page of a longer feed", id="paged"),
    ],
)
def test_a_feed_cut_short_says_so(tmp_path: Path, header: dict, note: str) -> None:
    path = tmp_path / "icml-2026-orals-posters.json"
    feed = {"count": 1, "next": None, "previous": None,
            "results": [feed_event(1, "A Poster", "Poster")]}  # fmt: skip
    feed.update(header)
    path.write_text(json.dumps(feed), encoding="utf-8")
    assert any(note in line for line in load_corpus([path]).skipped)


def test_a_feed_with_no_events_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "icml-2026-orals-posters.json"
    path.write_text('{"count": 0, "next": null, "previous": null, "results": []}', "utf-8")
    with pytest.raises(CorpusError):
        load_corpus([path])


def test_a_synthetic_programme_loads_each_paper_once(tmp_path: Path) -> None:
    feed = synthetic_programme(tmp_path, posters=300, orals=12)
    report = load_corpus([feed])
    assert len(report.papers) == 300 and report.merged == 12 and report.bad_records == 0
    assert sum(p.tier == "oral" for p in report.papers) == 12
    assert sum(len(p.presentations) == 2 for p in report.papers) == 12
    assert all(p.abstract and p.presentations for p in report.papers)
    total = sum(NOT_PAPERS.values())
    assert any(f"{total} events that are not papers" in line for line in report.skipped)


@pytest.mark.parametrize(
    ("start", "end", "why"),
    [
        ("soon", "2026-07-07T12:15:00+09:00", "start 'soon' is not a time"),
        ("2026-07-07T10:30:00", "2026-07-07T12:15:00", "has no UTC offset"),
        ("2026-07-07T10:30:00+09:00", "2026-07-07T09:00:00+09:00", "before start"),
        ("9999-07-07T10:30:00+09:00", "9999-07-07T12:15:00+09:00", "year 9999"),
        ("2026-07-07T10:30:00+15:00", "2026-07-07T12:15:00+15:00", "beyond ±14 hours"),
        ("", "2026-07-07T12:15:00+09:00", "an end without a start"),
    ],
)
def test_a_time_that_cannot_be_read_drops_that_presentation_and_says_so(
    tmp_path: Path, start: str, end: str, why: str
) -> None:
    event = {
        "id": 7, "name": "Sparse routers", "eventtype": "Poster", "session": "Poster Session 1",
        "starttime": start, "endtime": end, "room_name": "HALL A", "poster_position": "#1713",
        "decision": "Accept (regular)",
    }  # fmt: skip
    talk = {"starttime": "2026-07-07T10:00:00+09:00", "endtime": "2026-07-07T10:15:00+09:00"}
    oral = {**event, **talk, "id": 8, "eventtype": "Oral", "session": "Oral 1A"}
    feed = tmp_path / "icml-2026-orals-posters.json"
    feed.write_text(json.dumps({"count": 2, "next": None, "results": [event, oral]}))
    report = load_corpus([feed])
    (paper,) = report.papers
    assert [s.kind for s in paper.presentations] == ["oral"]  # the paper, less the poster
    assert any(why in line and "loaded without one presentation" in line for line in report.skipped)
    assert report.not_loaded == 1
