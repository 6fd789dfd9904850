"""Config: defaults, file, environment overrides, and one clear line for every mistake."""

from __future__ import annotations

from pathlib import Path

import pytest

from commonplace.config import ConfigError, load_settings, normalize_ollama_host


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "commonplace.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults_without_a_file(tmp_path: Path) -> None:
    s = load_settings(env={"XDG_CONFIG_HOME": str(tmp_path)})
    assert s.flavor == "obsidian"
    assert (s.model.backend, s.model.chat_model, s.model.embed_model) == ("auto", "", "")
    assert s.ollama.host == "http://127.0.0.1:11434"
    assert (s.web.host, s.web.port) == ("127.0.0.1", 8765)
    assert s.folder("inbox") == "Inbox"
    assert not s.vault_configured
    assert s.config_path is None


def test_file_is_read_from_the_user_config_folder(tmp_path: Path) -> None:
    folder = tmp_path / "commonplace"
    folder.mkdir()
    (folder / "commonplace.toml").write_text(
        'vault = "/srv/notes"\nflavor = "logseq"\ntimezone = "Europe/London"\n'
        '[ollama]\nchat_model = "qwen3.5:4b"\n[folders]\ninbox = "Capture"\n'
        '[web]\nts_name = "laptop.tail1234.ts.net"\nowner_login = "me@example.com"\n'
    )
    s = load_settings(env={"XDG_CONFIG_HOME": str(tmp_path)})
    assert s.vault == Path("/srv/notes")
    assert s.vault_configured
    assert s.flavor == "logseq"
    assert s.tz.key == "Europe/London"
    assert s.model.chat_model == "qwen3.5:4b"  # [model] chat_model: the old name of [model]'s
    assert s.folder("inbox") == "pages/Capture"  # Logseq shows pages under pages/
    assert s.folder("filed") == "pages/Filed"
    assert s.web.ts_name == "laptop.tail1234.ts.net"


def test_environment_overrides_the_file(tmp_path: Path) -> None:
    path = write(tmp_path, 'vault = "/a"\n[ollama]\nhost = "http://example:1"\n')
    s = load_settings(
        path,
        env={
            "COMMONPLACE_VAULT": "/b",
            "COMMONPLACE_DATA": "/data",
            "OLLAMA_HOST": "0.0.0.0",
            "COMMONPLACE_WEB_PORT": "9000",
        },
    )
    assert s.vault == Path("/b")
    assert s.data_dir == Path("/data")
    assert s.ollama.host == "http://0.0.0.0:11434"
    assert s.web.port == 9000


def test_config_path_from_environment(tmp_path: Path) -> None:
    path = write(tmp_path, 'flavor = "logseq"\n')
    assert load_settings(env={"COMMONPLACE_CONFIG": str(path)}).flavor == "logseq"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('flavor = "roam"\n', "flavor = 'roam' is not allowed; use 'obsidian' or 'logseq'"),
        ("[web]\nport = 99999\n", "web.port = 99999 is out of range"),
        ('[web]\nport = "eighty"\n', "web.port = 'eighty' is not valid; expected a whole number"),
        ('[ollama]\nchat_modle = "x"\n', "unknown key 'ollama.chat_modle'"),
        ('vaults = "/x"\n', "unknown key 'vaults'"),
        ('timezone = "Mars/Olympus"\n', "timezone = 'Mars/Olympus' is not a known zone"),
        ("ollama = 3\n", "[ollama] must be a table"),
        ('[folders]\ninbox = "../outside"\n', "folders.inbox = '../outside' must be a folder"),
        ('[folders]\ninbox = "Same"\nfiled = "Same"\n', "names must all differ"),
        ("flavor = \n", "not valid TOML"),
        ('[ollama]\nkeep_alive = "10 minutes"\n', "keep_alive = '10 minutes' is not a duration"),
        ('[ollama]\nkeep_alive = "5min"\n', "use a number of seconds or a Go duration"),
        ("[ollama]\nnum_ctx = 100\n", "ollama.num_ctx (now model.context) = 100 is too small"),
        ('[ollama]\nthink = "maybe"\n', "ollama.think (now model.think) = 'maybe' is not allowed"),
        (
            '[ollama]\nchat_model = "gpt-oss:120b-cloud"\n',
            "ollama.chat_model (now model.chat_model) = 'gpt-oss:120b-cloud' is one of Ollama's "
            "cloud models",
        ),
        ('[ollama]\nembed_model = "qwen3-embedding:cloud"\n', "send every note to ollama.com"),
    ],
)
def test_bad_config_gets_one_clear_line(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as err:
        load_settings(path, env={})
    assert message in str(err.value)
    assert str(path) in str(err.value)
    assert "\n" not in str(err.value)


def test_explicit_missing_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such config file"):
        load_settings(tmp_path / "nope.toml", env={})


def test_data_folder_must_be_outside_the_vault(tmp_path: Path) -> None:
    env = {"COMMONPLACE_VAULT": str(tmp_path / "v"), "COMMONPLACE_DATA": str(tmp_path / "v/.cp")}
    with pytest.raises(ConfigError, match="inside the vault"):
        load_settings(env=env)


def test_one_data_folder_per_vault(tmp_path: Path) -> None:
    a = load_settings(env={"COMMONPLACE_VAULT": str(tmp_path / "Notes"), "COMMONPLACE_DATA": "/d"})
    b = load_settings(
        env={"COMMONPLACE_VAULT": str(tmp_path / "x/Notes"), "COMMONPLACE_DATA": "/d"}
    )
    assert a.data_path != b.data_path
    assert a.data_path.parent == Path("/d")
    assert a.data_path.name.startswith("Notes-")


@pytest.mark.parametrize(
    ("raw", "url"),
    [
        ("127.0.0.1", "http://127.0.0.1:11434"),
        ("localhost:1234", "http://localhost:1234"),
        ("http://box:11434/", "http://box:11434"),
        ("https://ollama.example", "https://ollama.example:443"),
        ("http://box", "http://box:80"),
        ("[::1]", "http://[::1]:11434"),
    ],
)
def test_ollama_host_forms(raw: str, url: str) -> None:
    assert normalize_ollama_host(raw) == url


@pytest.mark.parametrize(
    ("host", "why"),
    [
        ("ftp://x", "uses ftp://, and Ollama answers only http:// or https://"),
        ("file:///tmp/ollama", "uses file://"),
        ("localhost:abc", "has a port that is not a number from 1 to 65535"),
        ("localhost:99999", "has a port that is not a number"),
        ("http://", "names no computer"),
        ("my box:11434", "has a space in it"),
    ],
)
def test_an_ollama_host_that_is_no_address_is_refused_at_once(
    tmp_path: Path, host: str, why: str
) -> None:
    """'ftp://x' was accepted, and every call then failed as "Ollama is not answering"."""
    path = write(tmp_path, f'[ollama]\nhost = "{host}"\n')
    with pytest.raises(ConfigError) as caught:
        load_settings(path, env={})
    message = str(caught.value)
    assert message.startswith(f"{path}: ollama.host = {host!r} {why}"), message
    assert "'localhost:11434'" in message and "\n" not in message
    with pytest.raises(ConfigError, match=r"^OLLAMA_HOST = 'ftp://x' uses ftp://"):
        load_settings(env={"OLLAMA_HOST": "ftp://x"})


@pytest.mark.parametrize(
    "host", ["localhost:11434", "box", ":11434", "HTTPS://box", "http://[::1]:8080/ollama/"]
)
def test_what_the_ollama_client_reads_as_a_host_is_accepted(tmp_path: Path, host: str) -> None:
    path = write(tmp_path, f'[ollama]\nhost = "{host}"\n')
    assert load_settings(path, env={}).ollama.host.startswith(("http://", "https://"))


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ('keep_alive = "1h30m"', "1h30m"),
        ("keep_alive = 600", "600"),
        ("keep_alive = -1", "-1"),
        ('keep_alive = "-1"', "-1"),
        ("keep_alive = 2.5", "2.5"),
    ],
)
def test_keep_alive_takes_go_durations_and_seconds(tmp_path: Path, text: str, kept: str) -> None:
    path = write(tmp_path, f"[ollama]\n{text}\n")
    assert load_settings(path, env={}).ollama.keep_alive == kept


def test_ollama_defaults_send_no_context_and_no_thinking(tmp_path: Path) -> None:
    s = load_settings(env={})
    assert (s.model.context, s.model.think, s.ollama.keep_alive) == (0, "off", "10m")


def test_data_folder_follows_xdg_data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    assert load_settings(env={}).data_dir == tmp_path / "xdg-data" / "commonplace"
    monkeypatch.delenv("XDG_DATA_HOME")
    assert load_settings(env={}).data_dir == tmp_path / "home" / ".local/share/commonplace"


def test_existing_data_never_moves_silently(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Data kept by an earlier version in ~/.local/share/commonplace stays in use."""
    legacy = tmp_path / "home" / ".local" / "share" / "commonplace"
    legacy.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    assert load_settings(env={}).data_dir == legacy
    (tmp_path / "xdg-data" / "commonplace").mkdir(parents=True)
    assert load_settings(env={}).data_dir == tmp_path / "xdg-data" / "commonplace"


def test_config_file_in_the_platforms_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("XDG_CONFIG_HOME")
    folder = tmp_path / "home" / ".config" / "commonplace"
    folder.mkdir(parents=True)
    (folder / "commonplace.toml").write_text('flavor = "logseq"\n')
    assert load_settings(env={}).flavor == "logseq"


@pytest.mark.parametrize("day", ["Sunday", "SUNDAY", "sunday", " Sunday "])
def test_digest_day_is_read_whatever_its_case(tmp_path: Path, day: str) -> None:
    settings = load_settings(write(tmp_path, f'[digest]\nday = "{day}"\n'), env={})
    assert settings.digest.day == "sunday"


def test_a_digest_day_that_is_no_day_names_the_days(tmp_path: Path) -> None:
    path = write(tmp_path, '[digest]\nday = "Sundy"\n')
    with pytest.raises(ConfigError) as err:
        load_settings(path, env={})
    assert "digest.day = 'sundy' is not allowed; use 'monday' or 'tuesday'" in str(err.value)
    assert "'sunday'" in str(err.value)
