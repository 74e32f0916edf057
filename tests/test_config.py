"""Settings: env over .env, defaults, and errors that name the setting."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.config import (
    DEFAULT_CORPUS,
    ConfigError,
    Settings,
    load_settings,
    parse_dotenv,
)

TOKEN = "123456:ABC-def_ghi"


def test_dotenv_handles_quotes_comments_and_export() -> None:
    text = """
    # a comment
    export TELEGRAM_BOT_TOKEN="123456:ABC-def_ghi"
    LOG_LEVEL=debug   # inline comment
    CORPUS='papers dir'
    EMPTY=
    not a line
    """
    assert parse_dotenv(text) == {
        "TELEGRAM_BOT_TOKEN": TOKEN,
        "LOG_LEVEL": "debug",
        "CORPUS": "papers dir",
        "EMPTY": "",
    }


def test_environment_wins_over_dotenv(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text("TELEGRAM_BOT_TOKEN=1:fromfile\nRESULTS_PER_PAGE=3\n")
    settings = load_settings({"TELEGRAM_BOT_TOKEN": TOKEN}, env_file=env_file)
    assert settings.token == TOKEN
    assert settings.results_per_page == 3


def test_defaults_without_anything(tmp_path: Path) -> None:
    settings = load_settings({}, env_file=tmp_path / "missing.env")
    # SEMANTIC=auto: on (the model's packages are dependencies).
    assert settings == Settings(semantic=True)
    assert settings.token is None and settings.corpus == (DEFAULT_CORPUS,)
    assert settings.results_per_page == 5 and settings.log_level == "INFO"


def test_token_never_appears_in_repr() -> None:
    assert TOKEN not in repr(Settings(token=TOKEN))


@pytest.mark.parametrize(
    ("name", "value"),
    [
        pytest.param("RESULTS_PER_PAGE", "0", id="page-zero"),
        pytest.param("RESULTS_PER_PAGE", "11", id="page-too-big"),
        pytest.param("RESULTS_PER_PAGE", "five", id="page-not-a-number"),
        pytest.param("LOG_LEVEL", "LOUD", id="log-level"),
        pytest.param("TELEGRAM_API_BASE_URL", "api.telegram.org/bot", id="no-scheme"),
        pytest.param("TELEGRAM_BOT_TOKEN", "not a token", id="token-shape"),
        pytest.param("CORPUS", "/no/such/dir", id="corpus-missing"),
        pytest.param("CORPUS_STRICT", "maybe", id="strict-not-yes-or-no"),
    ],
)
def test_invalid_values_name_the_setting(tmp_path: Path, name: str, value: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings({name: value}, env_file=None)
    assert caught.value.setting == name
    assert str(caught.value).startswith(f"{name}: ")


@pytest.mark.parametrize(
    ("value", "strict"),
    [("true", True), ("1", True), ("Yes", True), ("off", False), ("0", False), ("", False)],
)
def test_corpus_strict_reads_yes_and_no(value: str, strict: bool) -> None:
    assert load_settings({"CORPUS_STRICT": value}, env_file=None).corpus_strict is strict


def test_bad_token_error_does_not_echo_the_value() -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings({"TELEGRAM_BOT_TOKEN": "123456:secret with space"}, env_file=None)
    assert "secret" not in str(caught.value)


def test_base_url_and_corpus_list(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b.txt").write_text("x")
    settings = load_settings(
        {
            "TELEGRAM_API_BASE_URL": "http://127.0.0.1:8081/bot/",
            "CORPUS": f"{tmp_path / 'a'}:{tmp_path / 'b.txt'}",
        },
        env_file=None,
    )
    assert settings.api_base_url == "http://127.0.0.1:8081/bot"
    assert settings.corpus == (tmp_path / "a", tmp_path / "b.txt")


def test_index_cache_dir_defaults_to_none(tmp_path: Path) -> None:
    assert load_settings({}, env_file=tmp_path / "missing.env").index_cache_dir is None


def test_index_cache_dir_is_read_from_dotenv(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text(f"INDEX_CACHE_DIR={tmp_path / 'cache'}\n")
    assert load_settings({}, env_file=env_file).index_cache_dir == tmp_path / "cache"


def test_index_cache_dir_that_is_a_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    with pytest.raises(ConfigError, match="INDEX_CACHE_DIR"):
        load_settings({"INDEX_CACHE_DIR": str(tmp_path / "file")}, env_file=None)


def test_data_dir_defaults_to_the_xdg_data_home_outside_the_checkout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.config import REPO_ROOT

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert load_settings({}, env_file=None).data_dir == tmp_path / "xdg" / "icml-papers-bot"
    # Unset, or relative (which the XDG spec says to ignore): ~/.local/share.
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for xdg in (None, "relative/dir"):
        if xdg is None:
            monkeypatch.delenv("XDG_DATA_HOME")
        else:
            monkeypatch.setenv("XDG_DATA_HOME", xdg)
        settings = load_settings({}, env_file=None)
        assert settings.data_dir == tmp_path / "home" / ".local" / "share" / "icml-papers-bot"
        assert settings == Settings(semantic=settings.semantic)
    assert REPO_ROOT not in settings.data_dir.parents
    # DATA_DIR still wins.
    assert load_settings({"DATA_DIR": str(tmp_path)}, env_file=None).data_dir == tmp_path


# ------------------------------------------------------------------ the default corpus


def test_an_unset_corpus_serves_what_fetch_saved_else_the_bundled_programme(tmp_path: Path) -> None:
    from bot.config import PROGRAMME_FOLDER
    from bot.fetch.sources import programme_dir

    environ = {"DATA_DIR": str(tmp_path)}
    assert load_settings(environ, env_file=None).corpus == (DEFAULT_CORPUS,)  # nothing fetched
    folder = tmp_path / PROGRAMME_FOLDER
    folder.mkdir()
    (folder / ".icml-2026-orals-posters.json.x.part").write_text("{")  # a fetch cut short
    assert load_settings(environ, env_file=None).corpus == (DEFAULT_CORPUS,)
    (folder / "icml-2026-orals-posters.json").write_text('{"results": []}')
    settings = load_settings(environ, env_file=None)
    assert settings.corpus == (folder,) == (programme_dir(settings),)  # where fetch writes
    mine = tmp_path / "mine.jsonl"
    mine.write_text("{}\n")
    assert load_settings({**environ, "CORPUS": str(mine)}, env_file=None).corpus == (mine,)


def test_the_corpus_name_setting_is_one_line(tmp_path: Path) -> None:
    settings = load_settings({"CORPUS_NAME": "  NeurIPS\t2025  "}, env_file=None)
    assert settings.corpus_name == "NeurIPS 2025"
    assert load_settings({}, env_file=None).corpus_name == ""
