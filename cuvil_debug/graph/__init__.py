"""`cuvil-debug graph`: the FX graph and the optimized IR side by side, an edge from each
FX node to the op or kernel computing it, clusters per nn.Module (docs/GRAPH.md).

`build_graph` is the picture (a graphviz.Digraph) for any caller: the CLI
(`command.py`), the diff's HTML report, the TUI's export of the selected function::

    svg = render(build_graph(module, function="fused_0"), "svg")  # str (png: bytes)
"""

from .build import FORMATS, build_graph, render

__all__ = ["build_graph", "render", "FORMATS"]
