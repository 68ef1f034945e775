"""`cuvil-debug graph`: the FX graph and the optimized IR side by side, an edge from each
FX node to the op or kernel computing it, clusters per nn.Module (docs/GRAPH.md).

`build_graph` is the picture (a graphviz.Digraph) for any caller: the CLI
(`command.py`), the diff's HTML report, the TUI's export of the selected function."""

from .build import build_graph

__all__ = ["build_graph"]
