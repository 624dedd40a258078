"""The safe model format: a folder of ``model.json`` and plain tensors, written and read with checks.

See :mod:`agents.learned` for what the files hold.  Nothing here unpickles:
every fault in a file is a ``ValueError`` naming the file and the reason.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from commerce_env import observation as obs
from commerce_env.checks import is_number, is_whole
from commerce_env.engine.actions import NUM_ACTIONS
from commerce_env.files import atomic_write, writing_to
from commerce_env.rules import VARIANTS, Rules, make_rules

FORMAT = "commerce-rl-policy"
FORMAT_VERSION = 1
MODEL_JSON = "model.json"
ACTIVATIONS = ("tanh", "relu")
WEIGHT_FILES = ("weights.safetensors", "weights.pt")
# The columns each of commerce_env.features.FEATURES adds, known without building it
FEATURE_SIZES = {"hand_strength": 20}
# The largest network a model file may describe; training configs are held to the same limits
# (training.config), so that a run never trains what it could not save and load back.
MAX_HIDDEN_LAYERS = 16
MAX_HIDDEN_SIZE = 4096


def check_hidden(hidden: Any) -> str | None:
    """Why ``hidden`` is not a list of hidden layer sizes this format accepts (None when it is)."""
    if not isinstance(hidden, list) or not 1 <= len(hidden) <= MAX_HIDDEN_LAYERS:
        return f"a list of 1 to {MAX_HIDDEN_LAYERS} hidden layer sizes"
    if not all(is_whole(h) and 1 <= h <= MAX_HIDDEN_SIZE for h in hidden):
        return f"layer sizes from 1 to {MAX_HIDDEN_SIZE}"
    return None


# Test-time search (model.json ``search``): the network proposes, determinized rollouts may overrule
# it (agents.learned).  The most worlds a file may ask for per decision: more would make one decision
# take seconds.
SEARCH_KEYS = ("worlds", "margin")
MAX_SEARCH_WORLDS = 1000


# Fields older files may hold, with the one value this version plays by: ``exchange`` narrowed the
# policy's mask to one exchange with the face-up table, an option no shipped model used.
RETIRED_FIELDS = {"exchange": "any"}


def retired_field(meta: Mapping[str, Any]) -> str | None:
    """Why ``meta`` cannot be played as recorded (a retired field holding another value), or None."""
    for field, value in RETIRED_FIELDS.items():
        if field in meta and meta[field] != value:
            return f"{field} {meta[field]!r} is no longer supported (this version reads only {field} {value!r})"
    return None


def check_search(search: Any) -> str | None:
    """Why ``search`` is not a test-time search setting this format accepts (None when it is):
    ``{"worlds": 1..MAX_SEARCH_WORLDS, "margin": a number >= 0}``."""
    if not isinstance(search, dict) or sorted(search) != sorted(SEARCH_KEYS):
        return f"a mapping of exactly {', '.join(SEARCH_KEYS)}"
    worlds, margin = search["worlds"], search["margin"]
    if not is_whole(worlds) or not 1 <= worlds <= MAX_SEARCH_WORLDS:
        return f"worlds a whole number from 1 to {MAX_SEARCH_WORLDS}, got {worlds!r}"
    if not is_number(margin) or margin < 0:
        return f"margin a number >= 0 (standard errors), got {margin!r}"
    return None


def _layer_names(hidden: list[int]) -> list[str]:
    return [f"hidden.{i}" for i in range(len(hidden))] + ["logits"]


def expected_shapes(observation_size: int, hidden: list[int], num_actions: int = NUM_ACTIONS) -> dict:
    """``{tensor name: shape}`` of a policy network (``name.weight`` is out x in, as torch stores it)."""
    sizes = [observation_size, *hidden, num_actions]
    shapes = {}
    for name, (n_in, n_out) in zip(_layer_names(hidden), zip(sizes[:-1], sizes[1:], strict=True), strict=True):
        shapes[f"{name}.weight"] = (n_out, n_in)
        shapes[f"{name}.bias"] = (n_out,)
    return shapes


MAX_JSON_BYTES = 1 << 20  # a model.json is a few kB
MAX_JSON_DEPTH = 32
REAL_DTYPES = ("float16", "float32", "float64")  # what a weight may be stored as (read as float32)


def _fail(path: Path, why: str) -> ValueError:
    return ValueError(f"refusing model {path}: {why}")


def _inside(path: Path, folder: Path) -> None:
    """Refuse ``path`` unless it is a plain file right in ``folder``: never read a file elsewhere."""
    if path.is_symlink():
        raise _fail(path, "it is a symbolic link; a model folder holds its own files (copy the file in)")
    if path.exists() and path.resolve().parent != folder.resolve():
        raise _fail(path, f"it is not inside the model folder {folder}")
    if path.exists() and not path.is_file():
        raise _fail(path, "it is not a regular file")


def _json_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number a model file may hold")


def _json_float(text: str) -> float:
    value = float(text)
    if not np.isfinite(value):
        raise ValueError(f"number {text[:20]} is out of range")
    return value


def _depth(value: Any, limit: int) -> int:
    """How deeply ``value`` nests (stops counting past ``limit``)."""
    if limit < 0 or not isinstance(value, (dict, list)):
        return 0
    children = value.values() if isinstance(value, dict) else value
    return 1 + max((_depth(child, limit - 1) for child in children), default=0)


def _read_meta(json_path: Path) -> Any:
    """``model.json`` parsed, refusing what no exporter writes: huge, deeply nested, non-finite numbers."""
    size = json_path.stat().st_size
    if size > MAX_JSON_BYTES:
        raise _fail(json_path, f"model.json is {size:,} bytes; a model's is a few kB (at most {MAX_JSON_BYTES:,})")
    try:
        text = json_path.read_bytes().decode("utf-8")
        if max(text.count("["), text.count("{")) > 10_000:
            raise ValueError("too many nested values")
        meta = json.loads(text, parse_constant=_json_constant, parse_float=_json_float)
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as error:
        reason = "nested too deeply" if isinstance(error, RecursionError) else str(error)[:200]
        raise _fail(json_path, f"model.json is not readable JSON ({reason})") from None
    if _depth(meta, MAX_JSON_DEPTH) > MAX_JSON_DEPTH:
        raise _fail(json_path, f"model.json nests more than {MAX_JSON_DEPTH} levels deep")
    return meta


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _check_meta(meta: Any, path: Path) -> dict:
    if not isinstance(meta, dict):
        raise _fail(path, "model.json is not a JSON object")
    if meta.get("format") != FORMAT:
        raise _fail(path, f"format is {meta.get('format')!r}, expected {FORMAT!r}")
    if meta.get("format_version") != FORMAT_VERSION:
        raise _fail(path, f"format_version {meta.get('format_version')!r} is not {FORMAT_VERSION}")
    variant = meta.get("variant")
    if not isinstance(variant, str) or variant not in VARIANTS:
        raise _fail(path, f"unknown variant {variant!r}")
    rules = meta.get("rules")
    if (not isinstance(rules, dict) or not all(isinstance(k, str) for k in rules)
            or rules.get("variant", variant) != variant):
        raise _fail(path, f"rules {rules!r} are not a mapping for variant {variant!r}")
    try:
        rules_obj = make_rules(variant, **{k: v for k, v in rules.items() if k != "variant"})
        rules_obj.check_players(meta.get("num_players"))
    except (TypeError, ValueError) as error:
        raise _fail(path, str(error)) from None
    layout_version = meta.get("observation_layout_version")
    if not obs.known_layout(layout_version):
        raise _fail(path, f"observation layout version {layout_version!r}; this commerce_env reads "
                          f"{', '.join(map(str, obs.LAYOUT_VERSIONS))} (observation.LAYOUT_VERSIONS)")
    size = obs.observation_size(meta["num_players"])
    if meta.get("observation_size") != size:
        raise _fail(path, f"observation_size {meta.get('observation_size')!r}, expected {size} "
                          f"for {meta['num_players']} players")
    if meta.get("num_actions") != NUM_ACTIONS:
        raise _fail(path, f"num_actions {meta.get('num_actions')!r}, expected {NUM_ACTIONS}")
    network = meta.get("network")
    hidden = network.get("hidden") if isinstance(network, dict) else None
    problem = check_hidden(hidden)
    if problem:
        raise _fail(path, f"network.hidden must be {problem}, got {hidden!r}")
    if network.get("activation") not in ACTIVATIONS:
        raise _fail(path, f"network.activation {network.get('activation')!r}; choose from {', '.join(ACTIVATIONS)}")
    features = meta.get("features", [])
    if not isinstance(features, list) or any(not isinstance(f, str) or f not in FEATURE_SIZES for f in features):
        raise _fail(path, f"features {features!r}; known: {', '.join(FEATURE_SIZES)}")
    problem = retired_field(meta)
    if problem:
        raise _fail(path, problem)
    if "search" in meta and check_search(meta["search"]):
        raise _fail(path, f"search {meta['search']!r}: expected {check_search(meta['search'])}")
    if meta.get("weights_file") not in WEIGHT_FILES:
        raise _fail(path, f"weights_file {meta.get('weights_file')!r}; expected one of {', '.join(WEIGHT_FILES)}")
    return meta


def _read_weights(path: Path) -> dict[str, np.ndarray]:
    """Plain tensors only: safetensors, or a torch file read with ``weights_only=True``."""
    if path.suffix == ".safetensors":
        try:
            from safetensors.numpy import load_file
        except ImportError as error:  # its cause named: a broken install is not a missing one
            raise _fail(path, "the safetensors package is needed to read it (pip install safetensors; "
                              f"importing it said: {_first_line(error)})") from None
        try:
            arrays = dict(load_file(str(path)))
        except Exception as error:  # safetensors raises its own error types (bad header, bfloat16 for numpy)
            raise _fail(path, f"not a safetensors file of real float tensors ({_first_line(error)})") from None
        for name, array in arrays.items():
            if array.dtype.name not in REAL_DTYPES:
                raise _fail(path, f"tensor {name!r} is {array.dtype.name}; weights are real floats "
                                  f"({', '.join(REAL_DTYPES)})")
        return arrays
    import torch

    try:
        data = torch.load(str(path), map_location="cpu", weights_only=True)
    except Exception as error:  # truncated, not a torch file, or objects weights_only refuses
        raise _fail(path, "not a plain tensor file; torch.load(weights_only=True) refused it "
                          f"({_first_line(error)})") from None
    if not isinstance(data, dict) or not all(isinstance(k, str) and isinstance(v, torch.Tensor)
                                             for k, v in data.items()):
        raise _fail(path, "the weights file must hold a {name: tensor} dict")
    for name, tensor in data.items():
        dtype = str(tensor.dtype).removeprefix("torch.")
        if tensor.layout != torch.strided or tensor.is_quantized:
            raise _fail(path, f"tensor {name!r} is stored as {tensor.layout}; weights are dense tensors")
        if dtype not in REAL_DTYPES:
            raise _fail(path, f"tensor {name!r} is {dtype}; weights are real floats ({', '.join(REAL_DTYPES)})")
    return {k: v.detach().cpu().numpy() for k, v in data.items()}


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0][:200] if text else type(error).__name__


def input_size(meta: Mapping[str, Any]) -> int:
    """The network's input: the AEC observation plus the extra features it names."""
    return meta["observation_size"] + sum(FEATURE_SIZES[f] for f in meta.get("features", []))


def _check_weights(weights: dict[str, np.ndarray], meta: dict, path: Path) -> None:
    shapes = expected_shapes(input_size(meta), meta["network"]["hidden"])
    missing = sorted(set(shapes) - set(weights))
    extra = sorted(set(weights) - set(shapes))
    if missing or extra:
        raise _fail(path, f"tensors do not match the network: missing {missing}, unexpected {extra}")
    for name, shape in shapes.items():
        if tuple(weights[name].shape) != shape:
            raise _fail(path, f"tensor {name!r} has shape {tuple(weights[name].shape)}, expected {shape}")
        if not np.isfinite(weights[name]).all():
            raise _fail(path, f"tensor {name!r} holds NaN or infinite values")


def read_model(path: str | os.PathLike, variant: str | None = None,
               num_players: int | None = None) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The checked weights and ``model.json`` of a safe model folder (or its ``model.json``);
    ``variant`` / ``num_players``, when given, must match.  Every fault is a ``ValueError`` naming the file."""
    path = Path(path)
    json_path = path / MODEL_JSON if path.is_dir() else path
    meta = read_meta(path)
    weights_path = json_path.parent / meta["weights_file"]
    _inside(weights_path, json_path.parent)  # before it is opened, hashed or read
    if not weights_path.is_file():
        raise _fail(json_path, f"weights file {weights_path} is missing")
    expected = sum(4 * int(np.prod(shape)) for shape in expected_shapes(input_size(meta),
                                                                        meta["network"]["hidden"]).values())
    size = weights_path.stat().st_size
    if size > 2 * expected + (1 << 20):  # float64 weights plus a header, at most
        raise _fail(weights_path, f"it is {size:,} bytes; the network of model.json needs about {expected:,}")
    if _sha256(weights_path) != meta.get("weights_sha256"):
        raise _fail(weights_path, "its SHA-256 does not match model.json (corrupted or tampered)")
    weights = _read_weights(weights_path)
    _check_weights(weights, meta, weights_path)
    _check_expected(meta, variant, num_players, json_path)
    return weights, meta


def read_meta(path: str | os.PathLike) -> dict[str, Any]:
    """The checked ``model.json`` of a safe model folder (or the file itself), its weights left unread:
    what a model plays (``variant``, ``num_players``) before it is loaded."""
    path = Path(path)
    json_path = path / MODEL_JSON if path.is_dir() else path
    if not json_path.is_file():
        raise ValueError(f"no model at {path}: expected a folder with {MODEL_JSON} (see `commerce export`)")
    _inside(json_path, json_path.parent)  # a symlinked model.json is refused however the model is named
    return _check_meta(_read_meta(json_path), json_path)


def _check_expected(meta: dict, variant: str | None, num_players: int | None, path: Path) -> None:
    if variant is not None and meta["variant"] != variant:
        raise _fail(path, f"it was trained for variant {meta['variant']!r}, not {variant!r}")
    if num_players is not None and meta["num_players"] != num_players:
        raise _fail(path, f"it was trained for {meta['num_players']} players, not {num_players}")


def make_meta(rules: Rules, num_players: int, network: dict[str, Any], features: list[str] | None = None,
              search: Mapping[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    """The ``model.json`` record of a policy for ``rules`` and ``num_players``; ``search``: the
    test-time search it plays with (:func:`check_search`), written only when given (so the files
    of every other model are as they were)."""
    limit = {}
    if search is not None:
        problem = check_search(dict(search))
        if problem:
            raise ValueError(f"bad search {dict(search)!r}: expected {problem}")
        limit["search"] = dict(search)
    return {"format": FORMAT, "format_version": FORMAT_VERSION, "variant": rules.variant,
            "rules": rules.options(), "num_players": num_players,
            "observation_layout_version": obs.LAYOUT_VERSION,
            "observation_size": obs.observation_size(num_players), "features": list(features or []),
            **limit, "num_actions": NUM_ACTIONS, "network": network, **extra}


def _check_model_folder(folder: Path) -> None:
    """Refuse a folder holding anything but a model of ours: saving never overwrites a user's files."""
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"cannot save a model to {folder}: it is a file; choose a folder")
    if not folder.is_dir():
        return
    others = sorted(p.name for p in folder.iterdir() if p.name not in (MODEL_JSON, *WEIGHT_FILES))
    if others:
        raise ValueError(f"cannot save a model to {folder}: it holds other files ({', '.join(others[:3])}); "
                         "choose an empty folder (a model folder holds only model.json and its weights)")
    json_path = folder / MODEL_JSON
    if json_path.exists():
        try:
            ours = json.loads(json_path.read_text()).get("format") == FORMAT
        except (OSError, UnicodeDecodeError, ValueError, AttributeError):
            ours = False
        if not ours:
            raise ValueError(f"cannot save a model to {folder}: its {MODEL_JSON} is not a {FORMAT} model; "
                             "choose another folder")


def save_model(folder: str | os.PathLike, weights: Mapping[str, np.ndarray], meta: Mapping[str, Any],
               use_safetensors: bool | None = None) -> Path:
    """Write a safe model folder (weights, then ``model.json`` naming their checksum); returns the folder.

    The folder must be new, empty or hold a previous model (which is replaced).
    """
    folder = Path(folder)
    _check_model_folder(folder)
    with writing_to(folder):
        return _write_model(folder, weights, meta, use_safetensors)


def _write_model(folder: Path, weights: Mapping[str, np.ndarray], meta: Mapping[str, Any],
                 use_safetensors: bool | None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    if use_safetensors is None:
        try:
            import safetensors  # noqa: F401

            use_safetensors = True
        except ImportError:
            use_safetensors = False
    arrays = {k: np.ascontiguousarray(v, dtype=np.float32) for k, v in weights.items()}
    if use_safetensors:
        from safetensors.numpy import save

        weights_path = atomic_write(folder / "weights.safetensors", save(arrays))
    else:
        import torch

        tensors = {k: torch.from_numpy(v) for k, v in arrays.items()}
        weights_path = atomic_write(folder / "weights.pt", lambda handle: torch.save(tensors, handle))
    record = dict(meta, weights_file=weights_path.name, weights_sha256=_sha256(weights_path))
    atomic_write(folder / MODEL_JSON, json.dumps(record, indent=2) + "\n")
    for other in WEIGHT_FILES:  # a stale weights file of the other kind (ours: the folder held a model)
        if other != weights_path.name and (folder / other).exists():
            (folder / other).unlink()
    return folder
