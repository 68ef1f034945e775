"""Triage on unseen models: tiny-config Hugging Face transformers architectures (no
weights downloaded), with both frontends. Prints one line per model; needs
`transformers` (dev extra). The categories are judged by hand (docs/TRIAGE.md).

    .venv/bin/python benchmarks/triage_hf.py
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from cuvil_debug.triage.api import triage

TOKENS = "torch.randint(0, 64, (1, 8))"
MODELS = {
    "gpt2": (
        "GPT2Config",
        "GPT2Model",
        "n_layer=1, n_embd=32, n_head=2, vocab_size=64, n_positions=16",
        TOKENS,
    ),
    "bert": (
        "BertConfig",
        "BertModel",
        "num_hidden_layers=1, hidden_size=32, "
        "num_attention_heads=2, intermediate_size=64, vocab_size=64, "
        "max_position_embeddings=16",
        TOKENS,
    ),
    "llama": (
        "LlamaConfig",
        "LlamaModel",
        "num_hidden_layers=1, hidden_size=32, "
        "num_attention_heads=2, num_key_value_heads=2, intermediate_size=64, "
        "vocab_size=64",
        TOKENS,
    ),
    "distilbert": (
        "DistilBertConfig",
        "DistilBertModel",
        "n_layers=1, dim=32, n_heads=2, hidden_dim=64, vocab_size=64",
        TOKENS,
    ),
    "t5": (
        "T5Config",
        "T5EncoderModel",
        "num_layers=1, d_model=32, num_heads=2, d_ff=64, d_kv=16, vocab_size=64",
        TOKENS,
    ),
    "vit": (
        "ViTConfig",
        "ViTModel",
        "num_hidden_layers=1, hidden_size=32, "
        "num_attention_heads=2, intermediate_size=64, image_size=16, patch_size=8",
        "torch.randn(1, 3, 16, 16)",
    ),
}


def write(folder: Path, name: str, cfg: str, cls: str, kwargs: str, inputs: str) -> str:
    path = folder / f"{name}.py"
    path.write_text(
        f"import torch\nfrom transformers import {cfg}, {cls}\n\n\n"
        f"def Model():\n    torch.manual_seed(0)\n"
        f"    return {cls}({cfg}({kwargs}))\n\n\n"
        f"def example_inputs():\n    return ({inputs},)\n"
    )
    return str(path)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        specs = [write(Path(tmp), n, *m) for n, m in MODELS.items()]
        for frontend in ("fx", "export"):
            for r in triage(specs, frontend, timeout=300):
                loc = r.get("location") or {}
                where = (
                    f"{Path(loc['file']).name}:{loc['line']} {loc['text'][:50]}"
                    if loc
                    else ""
                )
                print(
                    f"{frontend:6} {Path(r['model']).stem:10} {r['status']:7} "
                    f"{r.get('category', ''):28} {r.get('confidence', ''):<6} {where}"
                )


if __name__ == "__main__":
    main()
