"""Source of labels.json: each model's label with its root line given by a unique
substring of that line (so editing a file does not silently shift root_line).
Run `python samples/failures/written/_labels_spec.py` to rewrite labels.json."""

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent

# name: (frontend, cause, category, root-line substring, why)
SPEC = {}


def add(name, frontend, cause, category, root, why):
    SPEC[name] = (frontend, cause, category, root, why)


# fmt: off
TX, GEN, ISIN, KW, RND = "try-except", "generator", "isinstance-check", "dict-splat-kwargs", "python-random"
INPL, STATE, INIT, EAG = "inplace-aten-op", "module-state-mutation", "init-size-arithmetic", "eager-failure"
DEC, SIG = "decorated-forward", "one-line-signature"

add("tx_softmax_overflow.py", "fx", TX, "data-dependent-control-flow", "if torch.isinf(peak).any():",
    "The overflow check inside the try block branches on a tensor value; the except clause only catches OverflowError, so the tracer's error on the `if` escapes.")
add("tx_view_fallback.py", "fx", TX, "unsupported-python-construct", "return seq.view(b, -1, self.patch * c)",
    "Eager relies on view() raising to take the padding fallback; the tracer records the view without raising, so the captured graph holds a view that is invalid for the input size.")
add("tx_budget_int.py", "export", TX, "data-dependent-python-value", "return max(1, int(",
    "int() of a tensor reduction inside the try block gives a data-dependent value (no exception to catch), and topk then needs it as a size.")
add("tx_strict_reshape.py", "export-strict", TX, "unsupported-python-construct", "k, v = kv.view(b, t, 2, self.heads, self.hd).unbind(2)",
    "The key/value split relies on view() raising RuntimeError to choose the grouped-query fallback; dynamo cannot trace catching an exception raised by a tensor op.")

add("gen_view_average.py", "fx", GEN, "proxy-iteration", "return sum(view for view in stack.unbind(0))",
    "The generator expression iterates the result of unbind() on a traced tensor, which is a single Proxy under fx.")
add("gen_window_yield.py", "fx", GEN, "dynamic-shape", "for start in range(0, x.size(1), size):",
    "The yield-based window helper calls range() on x.size(1), a Proxy under fx.")
add("gen_any_nan.py", "fx", GEN, "data-dependent-control-flow", "bad = any(torch.isnan(t).any() for t in (q, k, v))",
    "any() over the generator converts each traced tensor check to a Python bool.")
add("gen_max_scale.py", "fx", GEN, "data-dependent-control-flow", "peak = max(f.abs().amax() for f in feats)",
    "max() over a generator of tensor peaks compares tensor values in Python.")
add("gen_steps_dynamic.py", "export", GEN, "dynamic-shape", "steps = tuple(self.cell(x[:, t]) for t in range(x.size(1)))",
    "The generator unrolls range(x.size(1)) over the dynamic sequence dimension, which specialises it to a constant.")

add("isin_multiscale.py", "fx", ISIN, "proxy-iteration", "if isinstance(feats, torch.Tensor):",
    "A Proxy is not a torch.Tensor, so the single-map input is not wrapped in a list and zip() then iterates the traced tensor.")
add("isin_guard_raise.py", "fx", ISIN, "unsupported-python-construct", "if not isinstance(wav, torch.Tensor):",
    "The input-type guard rejects the fx Proxy (not a torch.Tensor) and raises TypeError.")
add("isin_count_len.py", "fx", ISIN, "proxy-iteration", "if isinstance(v, torch.Tensor):",
    "A Proxy is not a torch.Tensor, so the helper falls through to len() of the traced tensor.")
add("isin_type_exact.py", "export", ISIN, "non-torch-call", "if type(v) is torch.Tensor:",
    "Under torch.export the value is a FakeTensor/FunctionalTensor, so the exact type() check fails and the numpy conversion path runs on a traced tensor.")
add("isin_type_name.py", "export", ISIN, "unsupported-python-construct", "kind = type(x).__name__",
    "type(x).__name__ of a traced tensor is not 'Tensor' under torch.export, so the dispatcher raises TypeError.")

add("kw_block_kwargs.py", "fx", KW, "non-tensor-argument", "def forward(self, x, **block_kwargs):",
    "fx traces **block_kwargs as one Proxy, and splatting it into each block needs a real mapping.")
add("kw_format_stats.py", "fx", KW, "unsupported-python-construct", "log.debug(TEMPLATE.format(**stats))",
    "str.format(**stats) applies a float format spec to traced tensor values.")
add("kw_dict_zip_out.py", "fx", KW, "proxy-iteration", "return dict(zip(self.tasks, logits.unbind(-1)))",
    "The output dict is built by zip()-ing the task names with unbind() of a traced tensor, which iterates a Proxy.")
add("kw_dict_meta_out.py", "export", KW, "unsupported-io-type", '"num_queries": h.shape[1],',
    "The returned dict carries a Python int (a size) next to the tensors, and Cuvil accepts only tensor outputs.")
add("kw_splat_config.py", "export", KW, "unsupported-io-type", "def forward(self, x, cond):",
    "The conditioning dict is a container input (with a float among the tensors) splatted into the FiLM call. Relabelled non-tensor-argument -> unsupported-io-type (issue 16): under export no Proxy is involved: the float inside the dict input is a non-tensor value among the inputs (categories.py), as export's scalar and None inputs are labelled in written, zoo, zoo5 and zoo6.")

add("rnd_dropconnect_np.py", "fx", RND, "non-torch-call", "keep = np.random.binomial(1, probs)",
    "np.random.binomial is called with a traced tensor of probabilities.")
add("rnd_shuffle_rows_np.py", "export", RND, "non-torch-call", "order = np.random.permutation(order)",
    "np.random.permutation is applied to a traced index tensor.")
add("rnd_choices_weights.py", "export", RND, "non-torch-call", "(i,) = random.choices(range(len(self.branches)), weights=weights)",
    "random.choices is given a tensor of weights and compares their running sums in Python.")
add("rnd_gauss_sigma.py", "fx", RND, "non-torch-call", "return random.lognormvariate(torch.log(h.std()), spread)",
    "random.lognormvariate gets a traced tensor as its mean and calls math.exp on it.")
add("rnd_np_uniform_strict.py", "export-strict", RND, "non-torch-call", "noise = np.random.default_rng().uniform(size=h.shape[:2])",
    "A numpy Generator draws the dropout mask from the traced activation's shape inside forward().")

add("inpl_aten_add_bias.py", "fx", INPL, "inplace-mutation", "return torch.ops.aten.add_.Tensor(x, bias)",
    "The helper calls the in-place ATen overload add_ on the model input.")
add("inpl_out_arg.py", "export", INPL, "inplace-mutation", "torch.tanh(x, out=x)",
    "torch.tanh(x, out=x) writes the result into the model input.")
add("inpl_cls_slice_assign.py", "export", INPL, "inplace-mutation", "tokens[:, 0] = self.cls",
    "Slice assignment writes the class token into the input tensor.")
add("inpl_index_put_scatter.py", "fx", INPL, "inplace-mutation", "grid.index_put_((cells,), feats, accumulate=True)",
    "index_put_ accumulates into the grid, which is a model input.")
add("inpl_clamp_strict.py", "export-strict", INPL, "inplace-mutation", "depth.clamp_(min=0.0, max=max_depth)",
    "The helper clamps the depth input in place.")

add("state_call_counter.py", "export-strict", STATE, "inplace-mutation", "self.calls += 1",
    "forward() increments a plain tensor attribute (not a buffer) of the module in place.")
add("state_cache_hidden.py", "export", STATE, "inplace-mutation", "self.last_hidden.copy_(h.detach())",
    "forward() copies the hidden state into a plain tensor attribute of the module.")
add("state_ema_buffer.py", "fx", STATE, "inplace-mutation", "self.running_mean.mul_(1 - self.momentum).add_(self.momentum * h.mean(0))",
    "forward() updates a registered buffer in place (EMA of the batch mean).")
add("state_step_buffer.py", "export", STATE, "inplace-mutation", "self.step += x.shape[1]",
    "forward() advances a registered step buffer in place.")
add("state_kv_cache.py", "export-strict", STATE, "inplace-mutation", "self.k_cache[:, start : start + t] = k",
    "forward() writes the new keys (and values) into registered cache buffers by slice assignment.")

add("init_fuse_concat.py", "fx", INIT, "shape-mismatch", "self.fuse = nn.Linear(dim * 2, dim)",
    "The fuse layer expects 2*dim features but forward feeds it h + x of dim features.")
add("init_head_dim.py", "export", INIT, "shape-mismatch", "self.head_dim = hidden // heads",
    "hidden=48 is not divisible by heads=5, so heads*head_dim=45 and the qkv view cannot hold 48 features.")
add("init_expansion_project.py", "fx", INIT, "shape-mismatch", "self.project = nn.Conv2d(ch * 4, ch, 1)",
    "The projection assumes an expansion of 4 while expand produces ch * 6 channels.")
add("init_patch_channels.py", "export", INIT, "shape-mismatch", "self.proj = nn.Linear(patch * patch * 3, dim)",
    "The patch projection hard-codes 3 channels although in_chans is 1.")
add("init_norm_half.py", "export-strict", INIT, "shape-mismatch", "self.norm = nn.LayerNorm(dim // ratio)",
    "The LayerNorm is sized for the bottleneck (dim // ratio) but is applied after the up-projection (dim).")

add("eag_mask_kwarg.py", "fx", EAG, "undefined-name", "return x + self.ff(self.norm(x), mask=mask)",
    "The layer passes mask= to FeedForward.forward, which has no such parameter (TypeError eagerly too).")
add("eag_bmm_scores.py", "export", EAG, "shape-mismatch", "return torch.bmm(q, k) / q.shape[-1] ** 0.5",
    "The score helper multiplies q by k without transposing k.")
add("eag_gather_float_idx.py", "fx", EAG, "dtype-mismatch", "return row * width + torch.round(",
    "torch.round of a float expression makes the gather index float instead of int64.")
add("eag_numpy_init_proj.py", "export", EAG, "dtype-mismatch", 'self.register_buffer("w", torch.from_numpy(whitening_matrix(dim)))',
    "The buffer built from numpy is float64 and is multiplied with float32 activations.")
add("eag_einsum_heads.py", "export-strict", EAG, "shape-mismatch", 'scores = torch.einsum("bhqd,bhdk->bhqk", q, k)',
    "The einsum treats k as (b, h, d, k) although it is (b, h, t, d), so the contracted sizes differ.")

add("dec_timed_gate.py", "fx", DEC, "data-dependent-control-flow", "g = torch.sigmoid(self.gate(x)).mean()",
    "Inside the @timed forward, the gate's mean value decides an early return.")
add("dec_no_grad_numpy.py", "export", DEC, "non-torch-call", "calibrated = np.tanh(logits / 2.0)",
    "Inside the @torch.no_grad() forward, np.tanh is applied to a traced tensor.")
add("dec_memo_tokens.py", "fx", DEC, "proxy-iteration", "for i, tok in enumerate(x.transpose(0, 1)):",
    "Inside the memoised forward, enumerate() iterates a traced tensor.")
add("dec_logged_lengths.py", "export-strict", DEC, "data-dependent-python-value", "lengths = mask.sum(1).long().tolist()",
    "Inside the @logged forward, .tolist() turns the mask lengths into Python ints that then size a slice.")

add("sig_pool_mode.py", "fx", SIG, "non-tensor-argument", 'def forward(self, x, pool="mean", eps=1e-6, keepdim=False):',
    "The pool string parameter is traced as a Proxy and compared in an if.")
add("sig_dropout_prob.py", "fx", SIG, "non-tensor-argument", "def forward(self, tokens, drop_prob=0.1, noise=True):",
    "drop_prob/noise are traced as Proxies, and F.dropout checks the probability range in Python.")
add("sig_unfold_window.py", "fx", SIG, "non-tensor-argument", "def forward(self, x, window=4, stride=2):",
    "window and stride become graph inputs under fx, but only x is a tensor example input.")
add("sig_scale_shift.py", "export", SIG, "unsupported-io-type", "def forward(self, x, scale, shift=0.0, clamp=True):",
    "scale/shift/clamp are Python scalars passed as forward() arguments, which Cuvil cannot take as inputs. Under export no Proxy is involved: a non-tensor among the inputs (relabelled to the category definitions, as the zoo and zoo5 label scalar inputs).")
add("sig_topk_k.py", "export-strict", SIG, "unsupported-io-type", "def forward(self, x, k, largest=True, normalize=False):",
    "k is a Python int forward() argument, which Cuvil cannot take as an input. Under export no Proxy is involved: a non-tensor among the inputs (relabelled to the category definitions, as the zoo and zoo5 label scalar inputs).")
# fmt: on


def main():
    labels = {}
    for name, (frontend, cause, category, root, why) in sorted(SPEC.items()):
        lines = (HERE / name).read_text().splitlines()
        hits = [i + 1 for i, line in enumerate(lines) if root in line]
        if len(hits) != 1:
            raise SystemExit(f"{name}: root substring {root!r} matches lines {hits}")
        text = lines[hits[0] - 1].strip()
        assert text and not text.startswith("#") and not text.startswith('"""'), name
        labels[name] = {
            "category": category,
            "root_line": hits[0],
            "frontend": frontend,
            "cause": cause,
            "why": why,
        }
    (HERE / "labels.json").write_text(json.dumps(labels, indent=1) + "\n")
    print(f"wrote {len(labels)} labels")


if __name__ == "__main__":
    main()
