"""What the index checks cost: checked vs unchecked builds of models that index with
tensor values, and proof that the samples without such ops carry no check at all.

    python benchmarks/index_checks.py [--repeat 200] [--rounds 5]

Per model, two builds at O3 in one process, 1 thread: the ordinary one (every index is
compared against its dim) and one made under ``codegen.indexing.unchecked_indices()``
(an internal switch only this script uses). Calls are interleaved (A B A B ...) in
`rounds` rounds of `repeat` calls each; the median of each round's per-call time is
taken, and the overhead reported is the median over rounds of checked/unchecked - 1.
For each of samples/models/*.py the script compares the LLVM IR of the two builds: equal
text means the checks cost nothing there (none is emitted).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import torch
from torch import nn

import cuvil
from cuvil.codegen.indexing import unchecked_indices

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from cuvil_debug import load_model  # noqa: E402

SAMPLES = ["mlp", "small_cnn", "resnet18", "transformer_block"]


class EmbeddingMLP(nn.Module):
    """A bag-of-tokens classifier: embedding 32000x128, mean over 64 tokens, MLP."""

    def __init__(self) -> None:
        super().__init__()
        self.emb = nn.Embedding(32000, 128)
        self.mlp = nn.Sequential(nn.Linear(128, 256), nn.ReLU(), nn.Linear(256, 10))

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        return self.mlp(self.emb(tokens).mean(dim=1))


class EmbeddingTransformer(nn.Module):
    """Token + position embeddings, the sample's transformer block, a gather of the
    target tokens' logits (what a loss reads): seq 128, d 256, vocab 8000."""

    def __init__(self) -> None:
        super().__init__()
        block = load_model(str(ROOT / "samples" / "models" / "transformer_block.py"))
        self.block = block.model
        self.tok = nn.Embedding(8000, 256)
        self.pos = nn.Embedding(128, 256)
        self.head = nn.Linear(256, 8000)

    def forward(self, tokens: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(tokens.shape[1]).unsqueeze(0)
        h = self.block(self.tok(tokens) + self.pos(positions))
        logits = self.head(h)
        return torch.gather(logits, 2, targets.unsqueeze(-1)).squeeze(-1)


def _models() -> dict[str, tuple[nn.Module, tuple]]:
    gen = torch.Generator().manual_seed(0)
    tokens = torch.randint(0, 8000, (1, 128), generator=gen)
    return {
        "embedding + MLP, b8 x 64 tokens": (
            EmbeddingMLP().eval(),
            (torch.randint(0, 32000, (8, 64), generator=gen),),
        ),
        "embedding + transformer block + gather, b1 x 128": (
            EmbeddingTransformer().eval(),
            (tokens, torch.roll(tokens, -1, dims=1)),
        ),
    }


def _builds(model: nn.Module, inputs: tuple):
    opts = {"opt_level": "O3", "num_threads": 1}
    checked = cuvil.compile(model, inputs, options=opts)
    with unchecked_indices():
        unchecked = cuvil.compile(model, inputs, options=opts)
    return checked, unchecked


def _time(fn, inputs, repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(*inputs)
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples)


def measure(model, inputs, repeat: int, rounds: int) -> tuple[float, float, float]:
    """(checked ms, unchecked ms, overhead): medians over rounds, interleaved."""
    checked, unchecked = _builds(model, inputs)
    torch.testing.assert_close(checked(*inputs), unchecked(*inputs))
    for fn in (checked, unchecked):  # warm up
        _time(fn, inputs, 10)
    c_ms, u_ms, ratios = [], [], []
    for _ in range(rounds):
        a = b = 0.0
        for _ in range(repeat // 10):
            a += _time(checked, inputs, 10)
            b += _time(unchecked, inputs, 10)
        c_ms.append(a)
        u_ms.append(b)
        ratios.append(a / b - 1)
    n = repeat // 10
    return (
        statistics.median(c_ms) / n * 1e3,
        statistics.median(u_ms) / n * 1e3,
        statistics.median(ratios),
    )


def same_ir(name: str) -> bool:
    """Whether the sample's checked and unchecked builds have the same LLVM IR."""
    loaded = load_model(str(ROOT / "samples" / "models" / f"{name}.py"))
    checked, unchecked = _builds(loaded.model, tuple(loaded.inputs))
    return checked.program.llvm_ir == unchecked.program.llvm_ir


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=200, help="calls per round")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    print("| model | checked ms | unchecked ms | overhead |")
    print("|---|---|---|---|")
    for name, (model, inputs) in _models().items():
        c, u, r = measure(model, inputs, args.repeat, args.rounds)
        print(f"| {name} | {c:.4f} | {u:.4f} | {r * 100:+.2f}% |", flush=True)
    for name in SAMPLES:
        verdict = "identical (no check emitted)" if same_ir(name) else "DIFFERENT"
        print(f"| samples/models/{name}.py | LLVM IR checked vs unchecked: {verdict} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
