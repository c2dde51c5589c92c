"""A local judge model run in process through transformers (``evalcore-judge[local]``).

``model`` is a model directory, or a ``.gguf`` file (or a directory plus ``gguf_file``),
loaded from disk only: nothing is downloaded. Generation is greedy at temperature 0 and
seeded otherwise; calls are serialised (one model, one thread at a time). The answer's JSON
schema is given as an instruction in the prompt (the critic validates the answer).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs
from evalcore_http.prices import Usage

from .backends import INSTRUCTIONS, Completion, Decoding, Messages, text_only
from .schemas import JudgeAnswer, with_instruction

INSTALL_HINT = "pip install 'evalcore-judge[local]' (torch==2.13.0, transformers, gguf, accelerate)"


class TransformersBackend:
    """A causal language model from a local path, loaded on first use."""

    name = "transformers"
    paid = False

    def __init__(self, model: str, *, gguf_file: str | None = None, device: str = "cpu") -> None:
        path = Path(model).expanduser()
        if path.is_file() and path.suffix == ".gguf":
            path, gguf_file = path.parent, path.name
        if not path.exists():
            raise FileNotFoundError(
                f"judge model path {str(path)!r} does not exist; pass model=<local model directory or .gguf file>"
            )
        if gguf_file and not (path / gguf_file).is_file():
            raise FileNotFoundError(f"no GGUF file {gguf_file!r} in {str(path)!r}")
        self.path = path
        self.gguf_file = gguf_file
        self.device = device
        self.model = str(path / gguf_file) if gguf_file else str(path)
        self._lock = threading.Lock()
        self._loaded: tuple[Any, Any] | None = None

    def __repr__(self) -> str:
        return f"<TransformersBackend {self.model}>"

    def _load(self) -> tuple[Any, Any]:
        if self._loaded is None:
            try:
                from transformers import AutoModelForCausalLM, AutoTokenizer
            except ImportError as exc:
                raise ImportError(f"the transformers judge backend needs transformers: {INSTALL_HINT}") from exc
            kwargs: dict[str, Any] = {"local_files_only": True}
            if self.gguf_file:
                kwargs["gguf_file"] = self.gguf_file
            tokenizer = AutoTokenizer.from_pretrained(str(self.path), **kwargs)
            model = AutoModelForCausalLM.from_pretrained(str(self.path), **kwargs).to(self.device)
            model.eval()
            self._loaded = (tokenizer, model)
        return self._loaded

    def generate(self, messages: Messages, decoding: Decoding) -> Completion:
        """Blocking generation."""
        import torch

        with self._lock:
            tokenizer, model = self._load()
            texts = [{**m, "content": text_only(m["content"])} for m in messages]
            prompt = tokenizer.apply_chat_template(texts, tokenize=False, add_generation_prompt=True)
            inputs = tokenizer(prompt, return_tensors="pt").to(self.device)
            sampling: dict[str, Any] = {"do_sample": False}
            if decoding.temperature > 0:
                sampling = {"do_sample": True, "temperature": decoding.temperature}
                if decoding.seed is not None:
                    torch.manual_seed(decoding.seed)
            with torch.inference_mode():
                output = model.generate(
                    **inputs, max_new_tokens=decoding.max_tokens, pad_token_id=tokenizer.eos_token_id, **sampling,
                )
            prompt_len = inputs["input_ids"].shape[1]
            new = output[0, prompt_len:]
            text = tokenizer.decode(new, skip_special_tokens=True)
            finish = "length" if len(new) >= decoding.max_tokens else "stop"
            return Completion(text, Usage(int(prompt_len), int(len(new))), finish)

    async def agenerate(self, messages: Messages, decoding: Decoding, metadata: Mapping[str, Any],
                        schema: type[JudgeAnswer] | None = None) -> Completion:
        """The answer; a schema is asked for by an instruction in the prompt."""
        if schema is None:
            return await asyncio.to_thread(self.generate, messages, decoding)
        completion = await asyncio.to_thread(self.generate, with_instruction(messages, schema), decoding)
        return attrs.evolve(completion, answer_format=INSTRUCTIONS)
