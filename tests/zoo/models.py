"""The model zoo: popular Hugging Face architectures and torchvision classifiers with tiny
random configs (no weights are downloaded), as (name, build, inputs) specs.

Each text model is run with plain token ids and with a padding ``attention_mask`` (the last
tokens of the second row masked out), because transformers builds masks with advanced
indexing, ``cumsum`` and ``masked_fill``: paths a model without a mask never takes.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

import torch

BATCH, SEQ, VOCAB = 2, 8, 64
TEXT = dict(vocab_size=VOCAB)
# one layer, 32 wide, two heads: enough to run every kind of block once
BERTLIKE = dict(
    num_hidden_layers=1,
    hidden_size=32,
    num_attention_heads=2,
    intermediate_size=64,
    max_position_embeddings=32,
    **TEXT,
)
DECODER = dict(
    num_hidden_layers=1,
    hidden_size=32,
    num_attention_heads=2,
    num_key_value_heads=2,
    intermediate_size=64,
    **TEXT,
)


@dataclass(frozen=True)
class Spec:
    name: str
    config: str  # transformers config class, or "torchvision"
    model: str  # model class (transformers) or builder (torchvision.models)
    kwargs: dict
    kind: str  # "text" | "image" | "audio"
    image: int = 32  # image side for kind == "image"

    @property
    def masked(self) -> bool:
        """Whether the model takes an attention_mask (text models)."""
        return self.kind == "text"


SPECS = [
    Spec(
        "gpt2",
        "GPT2Config",
        "GPT2Model",
        dict(n_layer=1, n_embd=32, n_head=2, n_positions=32, **TEXT),
        "text",
    ),
    Spec("llama", "LlamaConfig", "LlamaModel", DECODER, "text"),
    Spec("qwen2", "Qwen2Config", "Qwen2Model", DECODER, "text"),
    Spec("mistral", "MistralConfig", "MistralModel", DECODER, "text"),
    Spec("gemma", "GemmaConfig", "GemmaModel", dict(DECODER, head_dim=16), "text"),
    Spec(
        "opt",
        "OPTConfig",
        "OPTModel",
        dict(
            num_hidden_layers=1,
            hidden_size=32,
            num_attention_heads=2,
            ffn_dim=64,
            word_embed_proj_dim=32,
            max_position_embeddings=32,
            **TEXT,
        ),
        "text",
    ),
    Spec("bert", "BertConfig", "BertModel", BERTLIKE, "text"),
    Spec("roberta", "RobertaConfig", "RobertaModel", BERTLIKE, "text"),
    Spec(
        "distilbert",
        "DistilBertConfig",
        "DistilBertModel",
        dict(
            n_layers=1,
            dim=32,
            n_heads=2,
            hidden_dim=64,
            max_position_embeddings=32,
            **TEXT,
        ),
        "text",
    ),
    Spec(
        "albert",
        "AlbertConfig",
        "AlbertModel",
        dict(BERTLIKE, embedding_size=16),
        "text",
    ),
    Spec(
        "electra",
        "ElectraConfig",
        "ElectraModel",
        dict(BERTLIKE, embedding_size=16),
        "text",
    ),
    Spec("deberta-v2", "DebertaV2Config", "DebertaV2Model", BERTLIKE, "text"),
    Spec(
        "t5",
        "T5Config",
        "T5EncoderModel",
        dict(num_layers=1, d_model=32, num_heads=2, d_ff=64, d_kv=16, **TEXT),
        "text",
    ),
    Spec(
        "bart",
        "BartConfig",
        "BartModel",
        dict(
            encoder_layers=1,
            decoder_layers=1,
            d_model=32,
            encoder_attention_heads=2,
            decoder_attention_heads=2,
            encoder_ffn_dim=64,
            decoder_ffn_dim=64,
            max_position_embeddings=32,
            **TEXT,
        ),
        "text",
    ),
    Spec(
        "vit",
        "ViTConfig",
        "ViTModel",
        dict(
            num_hidden_layers=1,
            hidden_size=32,
            num_attention_heads=2,
            intermediate_size=64,
            image_size=32,
            patch_size=8,
        ),
        "image",
    ),
    Spec(
        "clip-vision",
        "CLIPVisionConfig",
        "CLIPVisionModel",
        dict(
            num_hidden_layers=1,
            hidden_size=32,
            num_attention_heads=2,
            intermediate_size=64,
            image_size=32,
            patch_size=8,
        ),
        "image",
    ),
    Spec(
        "swin",
        "SwinConfig",
        "SwinModel",
        dict(
            image_size=32,
            patch_size=4,
            embed_dim=16,
            depths=[1, 1],
            num_heads=[2, 2],
            window_size=3,
        ),
        "image",
    ),
    Spec(
        "segformer",
        "SegformerConfig",
        "SegformerModel",
        dict(
            num_encoder_blocks=2,
            depths=[1, 1],
            sr_ratios=[2, 1],
            hidden_sizes=[16, 32],
            patch_sizes=[7, 3],
            strides=[4, 2],
            num_attention_heads=[1, 2],
            mlp_ratios=[2, 2],
        ),
        "image",
    ),
    Spec(
        "convnext",
        "ConvNextConfig",
        "ConvNextModel",
        dict(num_stages=2, hidden_sizes=[16, 32], depths=[1, 1]),
        "image",
    ),
    Spec(
        "resnet",
        "ResNetConfig",
        "ResNetModel",
        dict(
            embedding_size=16, hidden_sizes=[16, 32], depths=[1, 1], layer_type="basic"
        ),
        "image",
    ),
    Spec(
        "whisper-encoder",
        "WhisperConfig",
        "models.whisper.modeling_whisper.WhisperEncoder",
        dict(
            encoder_layers=1,
            d_model=32,
            encoder_attention_heads=2,
            encoder_ffn_dim=64,
            num_mel_bins=16,
            max_source_positions=16,
            **TEXT,
        ),
        "audio",
    ),
]

# extra builder arguments: ViT's positional table is sized for its image
_VISION = {
    "resnet18": {},
    "mobilenet_v2": {},
    "mobilenet_v3_small": {},
    "squeezenet1_0": {},
    "shufflenet_v2_x0_5": {},
    "efficientnet_b0": {},
    "regnet_y_400mf": {},
    "densenet121": {},
    "convnext_tiny": {},
    "vit_b_16": {"image_size": 64},
    "alexnet": {},
    "vgg11": {},
}
TORCHVISION = [
    Spec(name, "torchvision", name, dict(num_classes=10, **extra), "image", image=64)
    for name, extra in _VISION.items()
]


def shim_torchvision_ops() -> None:
    """Define the ``torchvision::`` C++ op schemas torchvision registers fakes for at
    import, when its compiled ops do not load beside this torch (the models don't use them)."""
    try:
        torch.ops.torchvision.nms  # noqa: B018 -- raises if the C++ library did not load
        return
    except (AttributeError, RuntimeError):
        pass
    lib = torch.library.Library("torchvision", "DEF")  # kept alive by torch's registry
    for schema in (
        "nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor",
        "qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor",
        "qroi_align(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, "
        "SymInt pooled_width, int sampling_ratio, bool aligned) -> Tensor",
        "roi_align(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, "
        "SymInt pooled_width, int sampling_ratio, bool aligned) -> Tensor",
        "_roi_align_backward(Tensor grad, Tensor rois, float spatial_scale, "
        "SymInt pooled_height, SymInt pooled_width, SymInt batch_size, SymInt channels, "
        "SymInt height, SymInt width, int sampling_ratio, bool aligned) -> Tensor",
        "ps_roi_align(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, "
        "SymInt pooled_width, int sampling_ratio) -> (Tensor, Tensor)",
        "_ps_roi_align_backward(Tensor grad, Tensor rois, Tensor channel_mapping, "
        "float spatial_scale, SymInt pooled_height, SymInt pooled_width, int sampling_ratio, "
        "SymInt batch_size, SymInt channels, SymInt height, SymInt width) -> Tensor",
        "roi_pool(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, "
        "SymInt pooled_width) -> (Tensor, Tensor)",
        "_roi_pool_backward(Tensor grad, Tensor rois, Tensor argmax, float spatial_scale, "
        "SymInt pooled_height, SymInt pooled_width, SymInt batch_size, SymInt channels, "
        "SymInt height, SymInt width) -> Tensor",
        "ps_roi_pool(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, "
        "SymInt pooled_width) -> (Tensor, Tensor)",
        "_ps_roi_pool_backward(Tensor grad, Tensor rois, Tensor channel_mapping, "
        "float spatial_scale, SymInt pooled_height, SymInt pooled_width, SymInt batch_size, "
        "SymInt channels, SymInt height, SymInt width) -> Tensor",
        "deform_conv2d(Tensor input, Tensor weight, Tensor offset, Tensor mask, Tensor bias, "
        "SymInt stride_h, SymInt stride_w, SymInt pad_h, SymInt pad_w, SymInt dilation_h, "
        "SymInt dilation_w, SymInt groups, SymInt offset_groups, bool use_mask) -> Tensor",
        "_deform_conv2d_backward(Tensor grad, Tensor input, Tensor weight, Tensor offset, "
        "Tensor mask, Tensor bias, SymInt stride_h, SymInt stride_w, SymInt pad_h, "
        "SymInt pad_w, SymInt dilation_h, SymInt dilation_w, SymInt groups, "
        "SymInt offset_groups, bool use_mask) -> (Tensor, Tensor, Tensor, Tensor, Tensor)",
    ):
        lib.define(schema)
    _SHIM.append(lib)


_SHIM: list = []


def build(spec: Spec) -> torch.nn.Module:
    """The model in eval mode, with seeded random weights."""
    torch.manual_seed(0)
    shim_torchvision_ops()  # transformers imports torchvision too
    if spec.config == "torchvision":
        models = importlib.import_module("torchvision.models")
        model = getattr(models, spec.model)(weights=None, **spec.kwargs)
        _trained_norms(model)
    else:
        transformers = importlib.import_module("transformers")
        config = getattr(transformers, spec.config)(**spec.kwargs)
        config._attn_implementation = "eager"
        module, _, cls = spec.model.rpartition(".")
        home = (
            importlib.import_module(f"transformers.{module}")
            if module
            else transformers
        )
        model = getattr(home, cls)(config)
    return model.eval()


def _trained_norms(model: torch.nn.Module) -> None:
    """Give batch norms the statistics and affine parameters of a trained model: at
    torchvision's init (mean 0, var 1, zero-init last gammas) deep nets such as MobileNet
    output ~1e-10, where every comparison passes vacuously; zero-initialized heads too."""
    g = torch.Generator().manual_seed(2)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, torch.nn.modules.batchnorm._BatchNorm):
                n = m.num_features
                m.running_mean.copy_(0.1 * torch.randn(n, generator=g))
                m.running_var.copy_(0.5 + torch.rand(n, generator=g))
                m.weight.copy_(1 + 0.2 * torch.randn(n, generator=g))
                m.bias.copy_(0.1 * torch.randn(n, generator=g))
            elif (
                isinstance(m, torch.nn.Linear) and not m.weight.any()
            ):  # ViT's zero head
                m.weight.copy_(0.02 * torch.randn(m.weight.shape, generator=g))


def inputs(
    spec: Spec, *, mask: bool = False, batch: int = BATCH, seq: int = SEQ
) -> dict:
    """Keyword inputs for the model's forward, seeded."""
    g = torch.Generator().manual_seed(1)
    if spec.kind == "image":
        return {
            "x" if spec.config == "torchvision" else "pixel_values": torch.randn(
                batch, 3, spec.image, spec.image, generator=g
            )
        }
    if spec.kind == "audio":
        return {"input_features": torch.randn(batch, 16, 32, generator=g)}
    ids = torch.randint(1, VOCAB, (batch, seq), generator=g)
    out = {"input_ids": ids}
    if mask:
        attention = torch.ones(batch, seq, dtype=torch.long)
        attention[-1, seq // 2 :] = 0  # the last row is padded
        out["attention_mask"] = attention
    return out


def find(name: str) -> Spec:
    return next(s for s in SPECS + TORCHVISION if s.name == name)


Builder = Callable[[Spec], torch.nn.Module]


class Positional(torch.nn.Module):
    """The model behind a positional forward (cuvil.compile takes a list of tensors),
    returning its first tensor output (last_hidden_state / logits)."""

    def __init__(self, model: torch.nn.Module, names: list[str]):
        super().__init__()
        self.model = model
        self.names = names

    def forward(self, x, extra=None):  # fixed arity: torch.fx cannot trace *args
        args = (x,) if extra is None else (x, extra)
        out = self.model(**dict(zip(self.names, args)))
        if isinstance(out, torch.Tensor):
            return out
        return out[0]


def case(spec: Spec, *, mask: bool = False, **shape) -> tuple[torch.nn.Module, list]:
    """(positional model, input list) for one zoo case."""
    kw = inputs(spec, mask=mask, **shape)
    return Positional(build(spec), list(kw)).eval(), list(kw.values())
