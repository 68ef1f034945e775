"""cuvil.metrics: a real Prometheus scrape over loopback after a cold and a warm compile
and some calls; off, nothing is imported and the call path is the plain one."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import urllib.request

import prometheus_client
import pytest

from cuvil import metrics

# serves on $CUVIL_METRICS_PORT=0 (a free port), compiles cold then warm, calls 5 times
SERVER = """
import sys, torch, cuvil
from torch import nn
class Small(nn.Module):
    def forward(self, x):
        return torch.tanh(x) + 1
x = torch.randn(8)
cold = cuvil.compile(Small(), [x])
warm = cuvil.compile(Small(), [x])
assert not cold.jit.cache_hit and warm.jit.cache_hit
assert type(warm).__name__ == "MeteredModule"
for _ in range(3):
    cold(x)
for _ in range(2):
    warm(x)
print(cuvil.metrics.ports()[0], flush=True)
sys.stdin.read()  # serve until the test closes stdin
"""

OFF = """
import sys, torch, cuvil
from cuvil.runtime.compiled import CompiledModule, NativeModule
cm = cuvil.compile(torch.nn.ReLU(), [torch.randn(4)])
cm(torch.randn(4))
assert "prometheus_client" not in sys.modules, "imported while off"
assert type(cm) is CompiledModule and type(cm).__call__ is NativeModule.__call__
assert not cuvil.metrics.enabled() and cuvil.metrics.ports() == []
sys.modules["prometheus_client"] = None  # as if the extra were not installed
try:
    cuvil.metrics.enable()
except cuvil.CuvilError as e:
    print(e)
"""


def _sample(text: str, name: str, **labels: str) -> float:
    want = ",".join(f'{k}="{v}"' for k, v in labels.items())
    pattern = rf"^{re.escape(name)}{re.escape('{' + want + '}') if want else ''} (\S+)$"
    found = re.search(pattern, text, re.MULTILINE)
    assert found, f"{name}{{{want}}} not in the scrape"
    return float(found.group(1))


def test_a_scrape_counts_compiles_cache_lookups_stages_and_calls(tmp_path):
    env = {**os.environ, "CUVIL_CACHE_DIR": str(tmp_path), metrics.PORT_ENV: "0"}
    proc = subprocess.Popen(
        [sys.executable, "-c", SERVER],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        port = int(proc.stdout.readline())
        url = f"http://127.0.0.1:{port}/metrics"
        text = urllib.request.urlopen(url, timeout=60).read().decode()
    finally:
        proc.stdin.close()
        proc.wait(timeout=120)
    assert _sample(text, "cuvil_compiles_total") == 2
    assert _sample(text, "cuvil_cache_hits_total", level="object") == 1
    assert _sample(text, "cuvil_cache_misses_total", level="object") == 1
    assert _sample(text, "cuvil_cache_hits_total", level="ir") == 1  # the warm one
    assert _sample(text, "cuvil_cache_misses_total", level="ir") == 1
    for stage in ("lower", "passes", "codegen", "llvm"):
        assert _sample(text, "cuvil_compile_seconds_count", stage=stage) == 2
        assert _sample(text, "cuvil_compile_seconds_sum", stage=stage) > 0
    assert _sample(text, "cuvil_call_seconds_count", model="Small") == 5
    assert proc.returncode == 0


def test_off_means_no_import_the_plain_call_and_a_clear_error_without_the_extra(
    tmp_path,
):
    env = {**os.environ, "CUVIL_CACHE_DIR": str(tmp_path)}
    env.pop(metrics.PORT_ENV, None)
    done = subprocess.run(
        [sys.executable, "-c", OFF],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "needs the prometheus-client package" in done.stdout
    assert "pip install 'cuvil[metrics]'" in done.stdout


def test_the_model_label_is_bounded():
    state = metrics._Metrics(prometheus_client)
    for i in range(metrics.MAX_MODELS + 10):
        state.call_observer(f"Model{i}")(0.001)
    labels = {
        s.labels["model"]
        for m in state.registry.collect()
        if m.name == "cuvil_call_seconds"
        for s in m.samples
    }
    assert len(labels) == metrics.MAX_MODELS + 1 and "other" in labels


@pytest.mark.parametrize("port", [-1, 70000, "80", True])
def test_a_bad_port_is_refused(port):
    with pytest.raises(metrics.CuvilError, match="must be an int 0..65535"):
        metrics.serve(port)


def test_a_bad_port_variable_fails_import_clearly(tmp_path):
    env = {**os.environ, metrics.PORT_ENV: "http"}
    done = subprocess.run(
        [sys.executable, "-c", "import cuvil"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode != 0 and "CUVIL_METRICS_PORT='http' is not a port" in (
        done.stderr
    )
