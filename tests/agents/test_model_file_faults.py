"""Every bad model file is a ValueError naming the file and why; nothing outside the folder is read."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch")
safetensors_torch = pytest.importorskip("safetensors.torch")

import agents.model_files as model_files  # noqa: E402
from agents.learned import expected_shapes, load_agent, make_meta, save_model  # noqa: E402
from agents.specs import make_agent  # noqa: E402
from commerce_env import observation as obs  # noqa: E402
from commerce_env.rules import make_rules  # noqa: E402

HIDDEN = [8]


def good_model(folder: Path, use_safetensors: bool) -> Path:
    shapes = expected_shapes(obs.observation_size(3), HIDDEN)
    rng = np.random.default_rng(0)
    weights = {name: rng.standard_normal(shape).astype(np.float32) for name, shape in shapes.items()}
    meta = make_meta(make_rules("trade_barter"), 3, {"hidden": HIDDEN, "activation": "tanh"})
    return save_model(folder, weights, meta, use_safetensors=use_safetensors)


def rewrite_weights(folder: Path, data: bytes) -> Path:
    """New weights bytes with a matching checksum in model.json, as a careful attacker would write them."""
    meta = json.loads((folder / "model.json").read_text())
    path = folder / meta["weights_file"]
    path.write_bytes(data)
    meta["weights_sha256"] = hashlib.sha256(data).hexdigest()
    (folder / "model.json").write_text(json.dumps(meta))
    return path


def tensors(folder: Path, convert) -> dict:
    shapes = expected_shapes(obs.observation_size(3), HIDDEN)
    return {name: convert(torch.zeros(shape)) for name, shape in shapes.items()}


def refused(folder: Path, path: Path, *words: str) -> None:
    with pytest.raises(ValueError) as error:
        load_agent(folder)
    message = str(error.value)
    assert str(path) in message, message
    for word in words:
        assert word in message, message


def test_a_good_model_loads_both_ways(tmp_path):
    for use in (False, True):
        assert load_agent(good_model(tmp_path / str(use), use)).meta["network"]["hidden"] == HIDDEN


@pytest.mark.parametrize("use_safetensors", [False, True])
@pytest.mark.parametrize("convert, word", [
    (lambda t: t.to(torch.bfloat16), "bfloat16"),
    (lambda t: t.to(torch.complex64), "complex64"),
    (lambda t: t.to(torch.int32), "int32"),
])
def test_weights_that_are_not_real_floats_are_refused(tmp_path, use_safetensors, convert, word):
    folder = good_model(tmp_path / "m", use_safetensors)
    data = tensors(folder, convert)
    if use_safetensors:
        blob = safetensors_torch.save(data)
    else:
        import io

        buffer = io.BytesIO()
        torch.save(data, buffer)
        blob = buffer.getvalue()
    path = rewrite_weights(folder, blob)
    refused(folder, path, word if not use_safetensors or word != "bfloat16" else "")


def test_sparse_weights_are_refused(tmp_path):
    import io

    folder = good_model(tmp_path / "m", False)
    buffer = io.BytesIO()
    torch.save(tensors(folder, lambda t: t.to_sparse()), buffer)
    refused(folder, rewrite_weights(folder, buffer.getvalue()), "dense")


@pytest.mark.parametrize("use_safetensors", [False, True])
def test_a_truncated_weights_file_is_refused(tmp_path, use_safetensors):
    folder = good_model(tmp_path / "m", use_safetensors)
    meta = json.loads((folder / "model.json").read_text())
    whole = (folder / meta["weights_file"]).read_bytes()
    refused(folder, rewrite_weights(folder, whole[: len(whole) // 2]))


def test_a_truncated_model_json_is_refused(tmp_path):
    folder = good_model(tmp_path / "m", False)
    text = (folder / "model.json").read_text()
    (folder / "model.json").write_text(text[: len(text) // 2])
    refused(folder, folder / "model.json", "JSON")


@pytest.mark.parametrize("text, word", [
    ("[" * 100_000 + "]" * 100_000, "JSON"),
    ('{"a": ' * 200 + "1" + "}" * 200, "nests"),
    ('{"format": "' + "x" * (2 << 20) + '"}', "bytes"),
    ('{"num_players": 1e999}', "out of range"),
    ('{"num_players": NaN}', "NaN"),
    ('{"num_players": ' + "9" * 5000 + "}", "JSON"),
])
def test_absurd_json_is_refused(tmp_path, text, word):
    folder = good_model(tmp_path / "m", False)
    (folder / "model.json").write_text(text)
    refused(folder, folder / "model.json", word)


@pytest.mark.parametrize("hidden", [[5000], [8] * 17, [10**30], [True]])
def test_oversized_networks_are_refused_before_the_weights_are_read(tmp_path, hidden):
    folder = good_model(tmp_path / "m", False)
    meta = json.loads((folder / "model.json").read_text())
    meta["network"]["hidden"] = hidden
    (folder / "model.json").write_text(json.dumps(meta))
    refused(folder, folder / "model.json", "network.hidden")


def test_an_oversized_weights_file_is_refused_before_it_is_hashed(tmp_path, monkeypatch):
    folder = good_model(tmp_path / "m", False)
    weights = folder / "weights.pt"
    with open(weights, "ab") as handle:
        handle.truncate(64 << 20)
    monkeypatch.setattr(model_files, "_sha256", lambda path: pytest.fail("hashed an oversized file"))
    refused(folder, weights, "bytes")


@pytest.mark.parametrize("use_safetensors", [False, True])
def test_a_symlinked_weights_file_is_refused_before_it_is_opened(tmp_path, monkeypatch, use_safetensors):
    outside = good_model(tmp_path / "outside", use_safetensors)
    folder = good_model(tmp_path / "m", use_safetensors)
    name = json.loads((folder / "model.json").read_text())["weights_file"]
    (folder / name).unlink()
    os.symlink(outside / name, folder / name)
    opened = []
    real_open = open
    monkeypatch.setattr("builtins.open", lambda file, *a, **k: (opened.append(str(file)), real_open(file, *a, **k))[1])
    monkeypatch.setattr(model_files, "_sha256", lambda path: pytest.fail("hashed a file outside the folder"))
    refused(folder, folder / name, "symbolic link")
    assert not any(str(outside) in path for path in opened)


def test_a_symlinked_model_json_is_refused(tmp_path):
    outside = good_model(tmp_path / "outside", False)
    folder = tmp_path / "m"
    folder.mkdir()
    os.symlink(outside / "model.json", folder / "model.json")
    refused(folder, folder / "model.json", "symbolic link")


def test_a_symlinked_model_json_given_as_a_file_is_refused_too(tmp_path):
    """Naming model.json itself (load_agent(".../model.json"), a ``<path>.json`` spec) is no way around it."""
    outside = good_model(tmp_path / "outside", False)
    folder = tmp_path / "m"
    folder.mkdir()
    os.symlink(outside / "model.json", folder / "model.json")
    for path in (folder / "model.json", f"model:{folder / 'model.json'}"):
        with pytest.raises(ValueError, match="symbolic link"):
            make_agent(str(path))


JSON = st.recursive(st.none() | st.booleans() | st.integers(-10**30, 10**30) | st.floats(allow_nan=False)
                    | st.text(max_size=6), lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.text(max_size=4), inner, max_size=3), max_leaves=8)
FIELDS = ["format", "format_version", "variant", "rules", "num_players", "observation_layout_version",
          "observation_size", "num_actions", "network", "features", "weights_file", "weights_sha256"]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(field=st.sampled_from(FIELDS), value=JSON)
def test_any_tampered_field_is_a_value_error_naming_the_file(tmp_path, field, value):
    folder = tmp_path / "fuzz"
    if not folder.exists():
        good_model(folder, False)
    path = folder / "model.json"
    meta = json.loads(path.read_text())
    original = dict(meta)
    meta[field] = value
    path.write_text(json.dumps(meta))
    try:
        load_agent(folder)
    except ValueError as error:
        assert str(path) in str(error) or str(folder) in str(error)
    finally:
        path.write_text(json.dumps(original))


def test_a_failed_safetensors_import_names_its_cause(tmp_path, tiny_model, monkeypatch):
    # A model that cannot be read says why: the import's own error, not only "install it".
    import sys

    from agents.learned import load_agent

    folder = tiny_model("old_game", 4, tmp_path / "m")
    monkeypatch.setitem(sys.modules, "safetensors.numpy", None)  # import raises ImportError
    with pytest.raises(ValueError, match="safetensors package is needed.*importing it said"):
        load_agent(folder)
