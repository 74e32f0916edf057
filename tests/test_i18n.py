"""The message catalogue: complete in every language, consistent placeholders, plurals, lookup."""

from __future__ import annotations

import html
import re
import string
import unicodedata
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import get_args

import pytest
from babel.messages.catalog import Catalog
from telegram import constants

import bot.i18n
from bot.commands import COMMANDS
from bot.i18n import (
    COMMAND_MENUS,
    DEFAULT_LANGUAGE,
    LANGUAGES,
    Lang,
    Part,
    is_language,
    pick_language,
    translator,
)
from bot.i18n.catalogue import _messages, catalogue_path, format_parts, split_markup
from bot.render.blocks import EXAMPLE_KEYS
from bot.render.limits import BUTTON_LABEL_CHARS
from bot.tg.serve import NO_TOKEN_MESSAGE
from testkit.fake_bot_api import parse_html, utf16_len
from testkit.i18n_build import (
    all_problems,
    catalogue_keys,
    key_of,
    main,
    problems,
    read_catalogue,
    stale_catalogues,
)
from testkit.i18n_keys import KEYS_MD, key_sites, keys_md

CHINESE: tuple[Lang, ...] = ("zh_Hans", "zh_Hant")

# Same text in every language by design: format names, and example commands whose words
# must stay English while the search is English BM25.
SAME_IN_EVERY_LANGUAGE = frozenset(
    {
        "button.export_bibtex",
        "link.pdf",
        "button.export_csv",
        "button.export_markdown",
        "help.command_line",
        "usage.search_example",
        "usage.paper_example",
        "usage.similar_example",
        "usage.session_example",
        "results.item",
        # Until retrieval is multilingual only English questions find papers.
        "examples.question_1",
        "examples.question_2",
        "examples.question_3",
        "usage.author_example",
        "usage.follow_example",
    }
)
# Texts Telegram shows as a callback-query answer (a toast), limited to 200 characters.
CALLBACK_ANSWERS = (
    "error.expired_button",
    "error.something_went_wrong",
    "button.private_bot",
    "list.saved",
    "list.removed",
    "list.save_failed",
)


def entries(lang: Lang) -> dict[str, tuple[str, ...]]:
    """Every entry of `lang`'s .po as key -> its forms (one, or one per plural form)."""
    return {
        key_of(m): tuple(m.string) if m.pluralizable else (m.string,)
        for m in read_catalogue(lang)
        if m.id
    }


def copy_of(lang: Lang) -> Catalog:
    return read_catalogue(lang)


# ---------------------------------------------------------------- catalogue files


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_catalogue_has_no_problems(lang: Lang) -> None:
    assert problems(read_catalogue(lang), read_catalogue(DEFAULT_LANGUAGE)) == []


@pytest.mark.parametrize("lang", CHINESE)
def test_every_key_exists_in_every_language(lang: Lang) -> None:
    assert entries(lang).keys() == entries("en").keys()


def test_a_missing_key_is_reported() -> None:
    catalogue = copy_of("zh_Hans")
    del catalogue["hint.empty"]
    assert problems(catalogue, read_catalogue("en")) == ["missing key 'hint.empty'"]


def test_an_extra_key_is_reported() -> None:
    catalogue = copy_of("zh_Hans")
    catalogue.add("hint.invented", "多出来的")
    assert problems(catalogue, read_catalogue("en")) == ["unknown key 'hint.invented'"]


@pytest.mark.parametrize(
    ("key", "text", "problem"),
    [
        pytest.param(
            "hint.no_match_query",
            "没有论文匹配 <i>{question}</i>",
            "placeholders",
            id="renamed-placeholder",
        ),
        pytest.param(
            "hint.no_match_query", "没有论文匹配 {query}", "placeholders or tags", id="dropped-tag"
        ),
        pytest.param(
            "hint.no_match_query", "没有论文匹配 <i>{query}", "unclosed <i>", id="unclosed-tag"
        ),
        pytest.param(
            "results.weak", "<b>没有<i>很</i>匹配</b>", "unbalanced or nested", id="nested-tags"
        ),
        pytest.param("hint.empty", "  ", "empty entry", id="blank"),
    ],
)
def test_a_broken_entry_is_reported(key: str, text: str, problem: str) -> None:
    catalogue = copy_of("zh_Hans")
    catalogue[key].string = text
    found = problems(catalogue, read_catalogue("en"))
    assert len(found) >= 1
    assert all(f.startswith(key) for f in found)
    assert any(problem in f for f in found)


def test_a_fuzzy_entry_is_reported() -> None:
    catalogue = copy_of("zh_Hant")
    catalogue["hint.empty"].flags.add("fuzzy")
    assert problems(catalogue, read_catalogue("en")) == [
        "hint.empty: marked fuzzy (gettext would not use it)"
    ]


def test_a_plural_entry_with_too_many_forms_is_reported() -> None:
    catalogue = copy_of("zh_Hans")
    catalogue["corpus.papers"].string = ("{count:,} 篇论文", "{count:,} 篇论文")
    assert problems(catalogue, read_catalogue("en")) == [
        "corpus.papers: 2 plural forms, the language has 1"
    ]


@pytest.mark.parametrize("lang", CHINESE)
def test_placeholders_are_identical_across_languages(lang: Lang) -> None:
    def names(forms: tuple[str, ...]) -> set[str]:
        return {m for form in forms for m in re.findall(r"\{(\w+)", form)}

    english = entries("en")
    differing = {k for k, forms in entries(lang).items() if names(forms) != names(english[k])}
    assert differing == set()


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_no_entry_is_empty(lang: Lang) -> None:
    assert [k for k, forms in entries(lang).items() if not all(f.strip() for f in forms)] == []


def is_cjk(ch: str) -> bool:
    return "CJK" in unicodedata.name(ch, "")


@pytest.mark.parametrize("lang", CHINESE)
def test_chinese_entries_are_translated_not_copied(lang: Lang) -> None:
    english = entries("en")
    untranslated = {
        key
        for key, forms in entries(lang).items()
        if key not in SAME_IN_EVERY_LANGUAGE
        and (forms == english[key] or not any(is_cjk(ch) for form in forms for ch in form))
    }
    assert untranslated == set()


# Common characters written differently in the two scripts, pair by pair.
SIMPLIFIED_ONLY = "论这们时为说没发认设网络请据链删录页码个过还关来库载结问题读单导"
TRADITIONAL_ONLY = "論這們時為說沒發認設網絡請據鏈刪錄頁碼個過還關來庫載結問題讀單導"


@pytest.mark.parametrize(
    ("lang", "foreign"),
    [
        pytest.param("zh_Hans", TRADITIONAL_ONLY, id="hans"),
        pytest.param("zh_Hant", SIMPLIFIED_ONLY, id="hant"),
    ],
)
def test_each_chinese_catalogue_keeps_to_its_script(lang: Lang, foreign: str) -> None:
    wrong = {k for k, forms in entries(lang).items() if set(foreign) & set("".join(forms))}
    assert wrong == set()


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_committed_mo_matches_the_po(lang: Lang) -> None:
    assert lang not in stale_catalogues()


@pytest.mark.slow
def test_build_check_passes_on_the_committed_catalogues() -> None:
    assert all_problems() == []
    assert main(["--check"]) == 0


@pytest.mark.slow
def test_keys_md_is_current() -> None:
    current = keys_md(catalogue_keys())
    assert KEYS_MD.read_text(encoding="utf-8") == current, "run python -m testkit.i18n_build"


@pytest.mark.slow
def test_every_catalogue_key_is_used_by_the_bot() -> None:
    assert [key for key, where in key_sites(catalogue_keys()).items() if not where] == []


def test_key_sites_read_literals_and_built_keys(tmp_path: Path) -> None:
    (tmp_path / "views.py").write_text(
        'KEYS = ("a.one",)\n'
        "def hint(t, kind):\n"
        '    return t.gettext("a.two") + t.gettext("b." + kind)\n'
        "class Cmd:\n"
        "    def key(self):\n"
        '        return f"c.{self.name}"\n'
    )
    keys = ["a.one", "a.two", "b.x", "c.y", "d.unused"]
    assert key_sites(keys, tmp_path) == {
        "a.one": ["views.KEYS"],
        "a.two": ["views.hint"],
        "b.x": ["views.hint"],
        "c.y": ["views.Cmd.key"],
        "d.unused": [],
    }


# ---------------------------------------------------------------- limits


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_button_labels_are_short(lang: Lang) -> None:
    long = {
        key: form
        for key, forms in entries(lang).items()
        if key.startswith("button.")
        for form in forms
        if len(form) > BUTTON_LABEL_CHARS
    }
    assert long == {}


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_callback_answers_fit(lang: Lang) -> None:
    limit = constants.CallbackQueryLimit.ANSWER_CALLBACK_QUERY_TEXT_LENGTH
    for key in CALLBACK_ANSWERS:
        assert utf16_len(translator(lang).gettext(key)) <= limit, key


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_every_entry_leaves_room_in_a_message(lang: Lang) -> None:
    # Counted in UTF-16 units like Telegram; a quarter of a message leaves room for the
    # values (a query is cut to 200 characters) and the rest of the answer.
    budget = constants.MessageLimit.MAX_TEXT_LENGTH // 4
    assert {k for k, forms in entries(lang).items() if max(map(utf16_len, forms)) > budget} == set()


def sample_values(template: str) -> dict[str, object]:
    """A value for every placeholder: a number where it has a format spec, else HTML-ish text."""
    return {
        field: 1.5 if spec else "<a&b>"
        for _lit, field, spec, _conv in string.Formatter().parse(template)
        if field
    }


def as_html(parts: tuple[Part, ...]) -> str:
    """Parts as the renderer emits them: every text escaped, a style as its tag."""
    tags = {"b": "b", "i": "i", "code": "code"}
    return "".join(
        f"<{tags[p.style]}>{html.escape(p.text, quote=False)}</{tags[p.style]}>"
        if p.style
        else html.escape(p.text, quote=False)
        for p in parts
    )


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_every_entry_emits_html_telegram_accepts(lang: Lang) -> None:
    tr = translator(lang)
    plural = {key_of(m) for m in read_catalogue("en") if m.pluralizable}
    for key, forms in entries(lang).items():
        values = sample_values("".join(forms))
        for n in (1, 2) if key in plural else (None,):
            parts = tr.parts(key, n, **values)
            assert parse_html(as_html(parts)) == "".join(p.text for p in parts), key


# ---------------------------------------------------------------- today's texts


def test_english_entries_match_todays_texts() -> None:
    tr = translator("en")
    assert tr.gettext("error.expired_button") == "This button has expired — please ask again."
    assert tr.gettext("error.something_went_wrong") == (
        "Sorry, something went wrong on my side. Please try again in a moment."
    )
    assert tr.gettext("error.rate_limited") == (
        "You are asking faster than I can keep up with — please slow down a little. "
        "I'll answer again in a minute."
    )
    assert tr.gettext("error.admin_only") == (
        "Sorry, this command is for the bot's admins only. Nothing was changed."
    )
    assert tr.gettext("error.private_bot") == (
        "Sorry, this bot is private: it only answers in the chats it was set up for. "
        "Ask its operator if you need access."
    )
    assert tr.gettext("button.private_bot") == "This bot is private"
    assert tr.gettext("app.no_token") == NO_TOKEN_MESSAGE
    assert tuple(f"examples.question_{i}" for i in (1, 2, 3)) == EXAMPLE_KEYS
    assert [c.description_key for c in COMMANDS] == [f"command.{c.name}" for c in COMMANDS]


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_every_menu_command_has_a_description(lang: Lang) -> None:
    tr = translator(lang)
    names = (c.name for c in COMMANDS)
    assert all(tr.gettext(f"command.{command}", corpus="ICML 2026") for command in names)


# ---------------------------------------------------------------- choosing the language


@pytest.mark.parametrize(
    ("code", "lang"),
    [
        pytest.param("zh", "zh_Hans", id="zh"),
        pytest.param("zh-hans", "zh_Hans", id="zh-hans"),
        pytest.param("zh-CN", "zh_Hans", id="zh-CN"),
        pytest.param("zh_sg", "zh_Hans", id="zh_sg-underscore"),
        pytest.param("ZH-HANS", "zh_Hans", id="upper-case"),
        pytest.param("zh-hant", "zh_Hant", id="zh-hant"),
        pytest.param("zh-TW", "zh_Hant", id="zh-TW"),
        pytest.param("zh-hk", "zh_Hant", id="zh-hk"),
        pytest.param("zh_MO", "zh_Hant", id="zh_MO"),
        pytest.param("zh-Hant-CN", "zh_Hant", id="script-beats-region-hant"),
        pytest.param("zh-Hans-HK", "zh_Hans", id="script-beats-region-hans"),
        pytest.param(" zh-tw ", "zh_Hant", id="spaces"),
        pytest.param("zh_Hant", "zh_Hant", id="catalogue-name"),
        pytest.param("en", "en", id="en"),
        pytest.param("en-US", "en", id="en-US"),
        pytest.param("de", "en", id="other-language"),
        pytest.param("zhx", "en", id="zh-prefix-only"),
        pytest.param("yue", "en", id="cantonese"),
        pytest.param("", "en", id="empty"),
        pytest.param(None, "en", id="none"),
    ],
)
def test_pick_language(code: str | None, lang: Lang) -> None:
    assert pick_language(code) == lang


def test_languages_have_their_own_names_and_match_lang() -> None:
    assert dict(LANGUAGES) == {"en": "English", "zh_Hans": "简体中文", "zh_Hant": "繁體中文"}
    assert tuple(LANGUAGES) == get_args(Lang)
    assert all(len(name) <= BUTTON_LABEL_CHARS for name in LANGUAGES.values())


def test_is_language() -> None:
    assert all(is_language(lang) for lang in LANGUAGES)
    assert not is_language("zh")
    assert not is_language(None)


def test_command_menus_use_two_letter_codes_and_known_languages() -> None:
    assert ("", DEFAULT_LANGUAGE) in COMMAND_MENUS
    for code, lang in COMMAND_MENUS:
        assert code == "" or re.fullmatch(r"[a-z]{2}", code)
        assert lang in LANGUAGES


# ---------------------------------------------------------------- translating


def test_english_plural_forms() -> None:
    tr = translator("en")
    assert tr.ngettext("corpus.papers_of", 1, name="ICML 2026") == "1 ICML 2026 paper"
    assert tr.ngettext("corpus.papers_of", 0, name="ICML 2026") == "0 ICML 2026 papers"
    assert tr.ngettext("corpus.papers_from", 57, venues="ICML 2013–2019").startswith("57 papers")
    one = tr.ngettext("start.welcome", 1, papers="1 paper")
    assert one == "Hi! I search 1 paper by its title and abstract."
    assert tr.ngettext("start.welcome", 57, papers="57 papers").endswith(
        "by their titles and abstracts."
    )


@pytest.mark.parametrize("lang", CHINESE)
def test_chinese_has_one_plural_form(lang: Lang) -> None:
    tr = translator(lang)
    one, many = tr.ngettext("stats.skipped", 1), tr.ngettext("stats.skipped", 12)
    assert one.replace("1", "12", 1) == many
    assert "12" in many


def test_ngettext_fills_count_unless_given() -> None:
    tr = translator("en")
    assert tr.ngettext("list.full", 2, limit=200) == (
        "Your reading list is full (200 papers) — remove one to save another."
    )
    assert tr.ngettext("author.header", 3, name="Ng") == "3 papers by Ng"


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_counts_group_their_thousands_and_years_do_not(lang: Lang) -> None:
    tr = translator(lang)
    assert "3,017" in tr.ngettext("corpus.papers_of", 3017, name="ICML 2026")
    header = tr.gettext("results.header", query="q", first=1001, last=1005, total=12345)
    assert "1,001" in header and "1,005" in header and "12,345" in header
    assert "2,019" not in tr.gettext("filters.years", low=2019, high=2020)
    assert "2019" in tr.gettext("filters.years", low=2019, high=2020)


def test_gettext_fills_placeholders_and_drops_markup() -> None:
    tr = translator("zh_Hans")
    assert tr.gettext("results.page", page=2, pages=9) == "第 2 页，共 9 页"
    assert tr.ngettext("stats.source_files", 3) == "来源：3 个文件"


def test_parts_carry_styles_and_fields() -> None:
    parts = translator("en").parts("results.header", query="diffusion", first=1, last=5, total=42)
    assert parts[:2] == (Part("Results for "), Part("diffusion", "i", "query"))
    assert "".join(p.text for p in parts) == "Results for diffusion — 1–5 of 42"


def test_a_value_is_never_read_as_markup() -> None:
    parts = translator("en").parts("hint.no_match_query", query="<b>x</b> {count}")
    assert parts == (Part("No paper matched "), Part("<b>x</b> {count}", "i", "query"))


def test_angle_brackets_that_are_not_tags_stay_text() -> None:
    assert split_markup("<code>/search <question></code> or <x>") == [
        ("/search <question>", "code"),
        (" or <x>", ""),
    ]


def test_a_missing_value_raises() -> None:
    with pytest.raises(KeyError, match="query"):
        translator("zh_Hant").gettext("hint.no_match_query")


def test_a_positional_placeholder_is_refused() -> None:
    with pytest.raises(ValueError, match="not a name"):
        format_parts("{0} papers", {"0": 1})


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_an_unknown_key_raises(lang: Lang) -> None:
    with pytest.raises(KeyError, match=r"no\.such\.key"):
        translator(lang).gettext("no.such.key")


def test_a_singular_entry_has_no_plural_lookup() -> None:
    with pytest.raises(KeyError, match=r"hint\.empty"):
        translator("zh_Hans").ngettext("hint.empty", 3)


def test_gettext_of_a_plural_entry_is_its_form_for_one() -> None:
    # The standard library's rule; {count} must still be given.
    tr = translator("en")
    assert tr.gettext("author.header", count=1, name="Ng") == tr.ngettext(
        "author.header", 1, name="Ng"
    )
    with pytest.raises(KeyError, match="count"):
        tr.gettext("author.header", name="Ng")


def test_unknown_language_is_refused_with_the_valid_ones() -> None:
    with pytest.raises(ValueError, match="en, zh_Hans, zh_Hant"):
        translator("fr")  # type: ignore[arg-type]


def test_translators_are_cached() -> None:
    assert translator("zh_Hant") is translator("zh_Hant")


def test_concurrent_first_use_gives_the_same_texts() -> None:
    translator.cache_clear()
    _messages.cache_clear()
    with ThreadPoolExecutor(max_workers=8) as pool:
        texts = list(
            pool.map(lambda i: translator(list(LANGUAGES)[i % 3]).gettext("hint.empty"), range(48))
        )
    assert {texts[i] for i in range(0, 48, 3)} == {translator("en").gettext("hint.empty")}
    assert len(set(texts)) == 3


def test_catalogues_are_where_the_readme_says() -> None:
    for lang in LANGUAGES:
        assert catalogue_path(lang, ".po").relative_to(Path(bot.i18n.__file__).parent) == Path(
            f"locales/{lang}/LC_MESSAGES/bot.po"
        )
