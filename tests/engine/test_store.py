"""The catalog's facts hold together, and the store finds, checks, adds and removes model files
with errors that name the command that fixes them. Real files in tmp_path: small GGUFs written
by the gguf package, and sparse files the size of a catalog model."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from commonplace.engine.catalog import (
    ALL_MINILM_L6_V2,
    DEFAULTS,
    MODELS,
    QWEN_CODER_15B,
    is_default,
    known,
)
from commonplace.engine.gguf_header import NotAGguf, read_header
from commonplace.engine.store import (
    ModelFolders,
    ModelProblem,
    add,
    check,
    find,
    installed,
    read_added,
    remove,
)
from tests.engine.conftest import write_gguf

HEX40, HEX64 = re.compile(r"^[0-9a-f]{40}$"), re.compile(r"^[0-9a-f]{64}$")


@pytest.fixture
def folders(tmp_path: Path) -> ModelFolders:
    return ModelFolders(user=tmp_path / "data" / "models", program=tmp_path / "venv-share")


def sparse(path: Path, size: int) -> Path:
    """A file of the model's size (zeros, taking no disk): found, but not its hash."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as f:
        f.truncate(size)
    return path


def test_the_catalog_is_pinned_and_consistent() -> None:
    assert len({m.id for m in MODELS}) == len(MODELS)
    assert {m.role for m in MODELS if m.id in DEFAULTS.values()} == {"chat", "embed"}
    for model in MODELS:
        assert HEX64.match(model.sha256) and model.size > 0 and model.licence
        assert model.download or model.download_note, f"{model.id}: say why it has no download"
        assert model.packaged is not None, "the sample and the tests need every model offline"
        for file in model.download:
            assert HEX40.match(file.revision), "a download is pinned to a commit, never a branch"
            assert HEX64.match(file.sha256)
        assert model.memory_at(2 * model.memory_context) >= model.memory_at(model.memory_context)
    assert QWEN_CODER_15B.download[0].sha256 == QWEN_CODER_15B.sha256
    assert is_default(QWEN_CODER_15B) and is_default(ALL_MINILM_L6_V2)
    assert known(" Qwen2.5-Coder-1.5B-Instruct ") is QWEN_CODER_15B


def test_a_missing_default_says_what_to_run_and_how_big_it_is(folders: ModelFolders) -> None:
    with pytest.raises(ModelProblem) as caught:
        find("chat", "", folders)
    assert "run `commonplace models get qwen2.5-coder-1.5b-instruct` (1.1 GB)" in str(caught.value)
    with pytest.raises(ModelProblem, match=r"models get all-minilm-l6-v2` \(91 MB\)"):
        find("embed", "", folders)
    with pytest.raises(ModelProblem, match="comes with the sample"):
        find("chat", "gemma-3-270m", folders)


def test_a_catalog_model_is_found_in_the_users_folder_first(folders: ModelFolders) -> None:
    program = sparse(folders.program / ALL_MINILM_L6_V2.file_name, ALL_MINILM_L6_V2.size)
    assert find("embed", "all-minilm-l6-v2", folders) == program
    user = sparse(folders.user / ALL_MINILM_L6_V2.file_name, ALL_MINILM_L6_V2.size)
    assert find("embed", "", folders) == user


def test_a_partial_file_is_not_taken_for_the_model(folders: ModelFolders) -> None:
    sparse(folders.user / ALL_MINILM_L6_V2.file_name, ALL_MINILM_L6_V2.size - 1)
    with pytest.raises(ModelProblem, match="not installed"):
        find("embed", "", folders)


def test_the_wrong_role_a_missing_path_and_an_unknown_name_are_explained(
    folders: ModelFolders, tmp_path: Path
) -> None:
    with pytest.raises(ModelProblem, match="is a chat model, not an embedding model"):
        find("embed", "qwen2.5-coder-1.5b-instruct", folders)
    with pytest.raises(ModelProblem, match=r"the chat model file .*nowhere.gguf does not exist"):
        find("chat", str(tmp_path / "nowhere.gguf"), folders)
    page = tmp_path / "page.gguf"
    page.write_text("<html>Not found</html>")
    with pytest.raises(ModelProblem, match="is not a GGUF file"):
        find("chat", str(page), folders)
    with pytest.raises(ModelProblem, match=r"no model 'llama-9000'.*models add PATH"):
        find("chat", "llama-9000", folders)


def test_a_gguf_path_in_the_config_is_used_as_it_is(folders: ModelFolders, tmp_path: Path) -> None:
    own = write_gguf(tmp_path / "own.gguf")
    assert find("chat", str(own), folders) == own


def test_check_finds_a_wrong_file_by_its_hash(folders: ModelFolders) -> None:
    sparse(folders.user / ALL_MINILM_L6_V2.file_name, ALL_MINILM_L6_V2.size)
    [item] = installed(folders)
    result = check(item)
    assert not result.ok
    assert (
        "SHA-256" in result.message and "commonplace models get all-minilm-l6-v2" in result.message
    )


def test_an_own_gguf_is_added_by_reference_listed_found_and_forgotten(
    folders: ModelFolders, tmp_path: Path
) -> None:
    own = write_gguf(tmp_path / "Tiny-Chat-Q4_K_M.gguf", name="Tiny Chat", context=2048)
    item = add(folders, own)
    assert (item.id, item.role, item.path) == ("tiny-chat-q4_k_m", "chat", own)
    assert item.added is not None and item.added.context == 2048 and item.added.name == "Tiny Chat"
    assert [i.id for i in installed(folders)] == ["tiny-chat-q4_k_m"]
    assert check(item).ok
    assert find("chat", "tiny-chat-q4_k_m", folders) == own

    assert "your file" in remove(folders, "tiny-chat-q4_k_m")
    assert own.is_file(), "forgetting a user's own model never deletes their file"
    assert read_added(folders) == []


def test_an_embedding_gguf_gets_the_embed_role_and_a_copy_is_removed_with_it(
    folders: ModelFolders, tmp_path: Path
) -> None:
    own = write_gguf(tmp_path / "enc.gguf", arch="bert")
    item = add(folders, own, copy=True)
    assert item.role == "embed" and item.path == folders.user / "enc.gguf"
    assert item.path.read_bytes() == own.read_bytes()
    assert not list(folders.user.glob("*.part"))
    remove(folders, "enc")
    assert not item.path.exists() and own.is_file()


def test_a_file_that_is_not_a_gguf_is_not_added(folders: ModelFolders, tmp_path: Path) -> None:
    page = tmp_path / "model.gguf"
    page.write_text("<html><body>error</body></html>")
    with pytest.raises(ModelProblem, match=r"not a GGUF file.*nothing was added"):
        add(folders, page)
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(write_gguf(tmp_path / "whole.gguf").read_bytes()[:40])
    with pytest.raises(NotAGguf, match="damaged GGUF"):
        read_header(cut)
    assert read_added(folders) == []


def test_an_added_file_that_changed_or_went_fails_its_check(
    folders: ModelFolders, tmp_path: Path
) -> None:
    own = write_gguf(tmp_path / "own.gguf")
    item = add(folders, own)
    with own.open("ab") as f:
        f.write(b"\0" * 10)
    assert "changed size" in check(item).message
    own.unlink()
    assert "is gone" in check(item).message
    with pytest.raises(ModelProblem, match="which is gone"):
        find("chat", item.id, folders)


def test_remove_deletes_a_download_and_its_part_but_not_the_programs_copy(
    folders: ModelFolders,
) -> None:
    path = sparse(folders.user / ALL_MINILM_L6_V2.file_name, 10)
    part = sparse(folders.user / (ALL_MINILM_L6_V2.file_name + ".part"), 10)
    assert "removed all-minilm-l6-v2" in remove(folders, "all-minilm-l6-v2")
    assert not path.exists() and not part.exists()
    sparse(folders.program / ALL_MINILM_L6_V2.file_name, 10)
    with pytest.raises(ModelProblem, match="came with the program"):
        remove(folders, "all-minilm-l6-v2")
    with pytest.raises(ModelProblem, match="no model 'nope'"):
        remove(folders, "nope")


def test_a_damaged_list_of_added_models_is_reported_not_ignored(folders: ModelFolders) -> None:
    folders.user.mkdir(parents=True)
    (folders.user / "added.json").write_text("[{")
    with pytest.raises(ModelProblem, match=r"added\.json is damaged"):
        installed(folders)
