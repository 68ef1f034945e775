"""Sweep tiny-config Hugging Face transformers and torchvision architectures through four
capture modes and record every failure with a normalised signature: the corpus behind
samples/failures/library/ (see its README.md).

    .venv/bin/python scripts/triage_sweep.py --out /tmp/triage_sweep            # all
    .venv/bin/python scripts/triage_sweep.py --out /tmp/s --only bert,gpt2 --modes fx
    .venv/bin/python scripts/triage_sweep.py --check samples/failures/library   # re-capture

Modes (a capture Cuvil lowers is `ok`; captures are not wrapped in torch.no_grad()):
  fx             torch.fx.Tracer().trace(model) -> GraphModule -> cuvil.frontend.lower(frontend="fx", gm=gm)
  export         torch.export.export(model, args, strict=False) -> lower(ep, frontend="export")
  export-strict  the same with strict=True
  dynamic        export non-strict with the file's DYNAMIC_SHAPES (batch, and sequence dims)

Every architecture runs in its own subprocess (one at a time: `-j` is not offered, the
machine is shared), each mode under a SIGALRM timeout. A case's model file is written
to OUT/cases/ in the format triage loads (Model factory, example_inputs, DYNAMIC_SHAPES),
so the file kept as a sample is exactly the one that failed.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import subprocess
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHIM = ROOT / "samples" / "failures" / "library" / "_shim.py"
MODES = ("fx", "export", "export-strict", "dynamic")
# the library frames a signature names (scripts/triage_sweep_timm.py sets its own)
LIB_PREFIXES = ("transformers/", "torchvision/")

# --------------------------------------------------------------------------- recipes
V = 64  # vocab
BERTLIKE = dict(
    num_hidden_layers=1,
    hidden_size=32,
    num_attention_heads=2,
    intermediate_size=64,
    max_position_embeddings=32,
    vocab_size=V,
)
DECODER = dict(
    num_hidden_layers=1,
    hidden_size=32,
    num_attention_heads=2,
    num_key_value_heads=2,
    intermediate_size=64,
    vocab_size=V,
    max_position_embeddings=32,
)
BARTLIKE = dict(
    encoder_layers=1,
    decoder_layers=1,
    d_model=32,
    encoder_attention_heads=2,
    decoder_attention_heads=2,
    encoder_ffn_dim=64,
    decoder_ffn_dim=64,
    max_position_embeddings=32,
    vocab_size=V,
)
T5LIKE = dict(
    num_layers=1,
    num_decoder_layers=1,
    d_model=32,
    num_heads=2,
    d_ff=64,
    d_kv=16,
    vocab_size=V,
)
VITLIKE = dict(
    num_hidden_layers=1,
    hidden_size=32,
    num_attention_heads=2,
    intermediate_size=64,
    image_size=32,
    patch_size=8,
)

# (name, family, config class, model class, config kwargs, kind[, builder kwargs/size])
HF = [
    # ---- text encoders
    ("bert", "bert", "BertConfig", "BertModel", BERTLIKE, "text"),
    (
        "bert-cls",
        "bert",
        "BertConfig",
        "BertForSequenceClassification",
        BERTLIKE,
        "text",
    ),
    ("roberta", "bert", "RobertaConfig", "RobertaModel", BERTLIKE, "text"),
    ("xlm-roberta", "bert", "XLMRobertaConfig", "XLMRobertaModel", BERTLIKE, "text"),
    (
        "camembert-mlm",
        "bert",
        "CamembertConfig",
        "CamembertForMaskedLM",
        BERTLIKE,
        "text",
    ),
    (
        "electra",
        "electra",
        "ElectraConfig",
        "ElectraModel",
        dict(BERTLIKE, embedding_size=16),
        "text",
    ),
    (
        "albert",
        "albert",
        "AlbertConfig",
        "AlbertModel",
        dict(BERTLIKE, embedding_size=16),
        "text",
    ),
    (
        "distilbert",
        "distilbert",
        "DistilBertConfig",
        "DistilBertModel",
        dict(
            n_layers=1,
            dim=32,
            n_heads=2,
            hidden_dim=64,
            max_position_embeddings=32,
            vocab_size=V,
        ),
        "text",
    ),
    ("deberta", "deberta", "DebertaConfig", "DebertaModel", BERTLIKE, "text"),
    ("deberta-v2", "deberta", "DebertaV2Config", "DebertaV2Model", BERTLIKE, "text"),
    ("mpnet", "mpnet", "MPNetConfig", "MPNetModel", BERTLIKE, "text"),
    (
        "convbert",
        "convbert",
        "ConvBertConfig",
        "ConvBertModel",
        dict(BERTLIKE, embedding_size=32),
        "text",
    ),
    ("ernie", "bert", "ErnieConfig", "ErnieModel", BERTLIKE, "text"),
    (
        "roformer",
        "roformer",
        "RoFormerConfig",
        "RoFormerModel",
        dict(BERTLIKE, embedding_size=32),
        "text",
    ),
    (
        "megatron-bert",
        "bert",
        "MegatronBertConfig",
        "MegatronBertModel",
        BERTLIKE,
        "text",
    ),
    (
        "squeezebert",
        "squeezebert",
        "SqueezeBertConfig",
        "SqueezeBertModel",
        dict(
            BERTLIKE,
            embedding_size=32,
            q_groups=2,
            k_groups=2,
            v_groups=2,
            post_attention_groups=2,
            intermediate_groups=2,
            output_groups=2,
        ),
        "text",
    ),
    (
        "funnel",
        "funnel",
        "FunnelConfig",
        "FunnelModel",
        dict(
            block_sizes=[1, 1],
            num_decoder_layers=1,
            d_model=32,
            n_head=2,
            d_head=16,
            d_inner=64,
            vocab_size=V,
        ),
        "text",
    ),
    (
        "longformer",
        "longformer",
        "LongformerConfig",
        "LongformerModel",
        dict(BERTLIKE, attention_window=4, max_position_embeddings=40),
        "text",
    ),
    (
        "big-bird",
        "big-bird",
        "BigBirdConfig",
        "BigBirdModel",
        dict(BERTLIKE, attention_type="original_full"),
        "text",
    ),
    (
        "xlm",
        "xlm",
        "XLMConfig",
        "XLMModel",
        dict(
            n_layers=1, emb_dim=32, n_heads=2, vocab_size=V, max_position_embeddings=32
        ),
        "text",
    ),
    (
        "canine",
        "canine",
        "CanineConfig",
        "CanineModel",
        dict(
            BERTLIKE,
            num_hash_functions=2,
            num_hash_buckets=64,
            downsampling_rate=2,
            local_transformer_stride=4,
        ),
        "text",
    ),
    ("layoutlm", "layoutlm", "LayoutLMConfig", "LayoutLMModel", BERTLIKE, "text"),
    (
        "mobilebert",
        "mobilebert",
        "MobileBertConfig",
        "MobileBertModel",
        dict(
            BERTLIKE,
            embedding_size=16,
            intra_bottleneck_size=16,
            true_hidden_size=16,
            num_feedforward_networks=1,
        ),
        "text",
    ),
    (
        "rembert",
        "rembert",
        "RemBertConfig",
        "RemBertModel",
        dict(BERTLIKE, input_embedding_size=16, output_embedding_size=16),
        "text",
    ),
    ("ibert", "bert", "IBertConfig", "IBertModel", BERTLIKE, "text"),
    (
        "modernbert",
        "modernbert",
        "ModernBertConfig",
        "ModernBertModel",
        dict(BERTLIKE, global_attn_every_n_layers=1, local_attention=8, pad_token_id=0),
        "text",
    ),
    (
        "nystromformer",
        "nystromformer",
        "NystromformerConfig",
        "NystromformerModel",
        dict(BERTLIKE, segment_means_seq_len=8, num_landmarks=4),
        "text",
    ),
    (
        "fnet",
        "fnet",
        "FNetConfig",
        "FNetModel",
        dict(BERTLIKE, use_tpu_fourier_optimizations=False),
        "text",
    ),
    (
        "esm",
        "esm",
        "EsmConfig",
        "EsmModel",
        dict(BERTLIKE, pad_token_id=1, mask_token_id=2),
        "text",
    ),
    (
        "mra",
        "mra",
        "MraConfig",
        "MraModel",
        dict(BERTLIKE, max_position_embeddings=40),
        "text",
    ),
    (
        "xmod",
        "bert",
        "XmodConfig",
        "XmodModel",
        dict(BERTLIKE, languages=["en_XX"], default_language="en_XX"),
        "text",
    ),
    # ---- decoders
    (
        "gpt2",
        "gpt2",
        "GPT2Config",
        "GPT2Model",
        dict(n_layer=1, n_embd=32, n_head=2, n_positions=32, vocab_size=V),
        "text",
    ),
    (
        "gpt2-lm",
        "gpt2",
        "GPT2Config",
        "GPT2LMHeadModel",
        dict(n_layer=1, n_embd=32, n_head=2, n_positions=32, vocab_size=V),
        "text",
    ),
    (
        "gpt-neo",
        "gpt-neo",
        "GPTNeoConfig",
        "GPTNeoModel",
        dict(
            num_layers=1,
            attention_types=[[["global"], 1]],
            hidden_size=32,
            num_heads=2,
            vocab_size=V,
            max_position_embeddings=32,
        ),
        "text",
    ),
    (
        "gptj",
        "gptj",
        "GPTJConfig",
        "GPTJModel",
        dict(
            n_layer=1, n_embd=32, n_head=2, rotary_dim=8, n_positions=32, vocab_size=V
        ),
        "text",
    ),
    ("gpt-neox", "gpt-neox", "GPTNeoXConfig", "GPTNeoXModel", DECODER, "text"),
    (
        "bloom",
        "bloom",
        "BloomConfig",
        "BloomModel",
        dict(n_layer=1, hidden_size=32, n_head=2, vocab_size=V),
        "text",
    ),
    (
        "opt",
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
            vocab_size=V,
        ),
        "text",
    ),
    ("llama", "llama", "LlamaConfig", "LlamaModel", DECODER, "text"),
    ("llama-lm", "llama", "LlamaConfig", "LlamaForCausalLM", DECODER, "text"),
    ("mistral", "llama", "MistralConfig", "MistralModel", DECODER, "text"),
    ("qwen2", "llama", "Qwen2Config", "Qwen2Model", DECODER, "text"),
    ("qwen3", "llama", "Qwen3Config", "Qwen3Model", dict(DECODER, head_dim=16), "text"),
    ("gemma", "gemma", "GemmaConfig", "GemmaModel", dict(DECODER, head_dim=16), "text"),
    (
        "gemma2",
        "gemma",
        "Gemma2Config",
        "Gemma2Model",
        dict(DECODER, head_dim=16, sliding_window=4),
        "text",
    ),
    ("phi", "phi", "PhiConfig", "PhiModel", DECODER, "text"),
    ("phi3", "phi3", "Phi3Config", "Phi3Model", dict(DECODER, pad_token_id=0), "text"),
    (
        "falcon",
        "falcon",
        "FalconConfig",
        "FalconModel",
        dict(num_hidden_layers=1, hidden_size=32, num_attention_heads=2, vocab_size=V),
        "text",
    ),
    (
        "codegen",
        "codegen",
        "CodeGenConfig",
        "CodeGenModel",
        dict(
            n_layer=1,
            n_embd=32,
            n_head=2,
            rotary_dim=8,
            n_positions=32,
            n_ctx=32,
            vocab_size=V,
        ),
        "text",
    ),
    (
        "mpt",
        "mpt",
        "MptConfig",
        "MptModel",
        dict(n_layers=1, d_model=32, n_heads=2, max_seq_len=32, vocab_size=V),
        "text",
    ),
    ("stablelm", "llama", "StableLmConfig", "StableLmModel", DECODER, "text"),
    ("starcoder2", "llama", "Starcoder2Config", "Starcoder2Model", DECODER, "text"),
    ("olmo", "llama", "OlmoConfig", "OlmoModel", DECODER, "text"),
    ("cohere", "cohere", "CohereConfig", "CohereModel", DECODER, "text"),
    (
        "mixtral",
        "mixtral",
        "MixtralConfig",
        "MixtralModel",
        dict(DECODER, num_local_experts=4, num_experts_per_tok=2),
        "text",
    ),
    (
        "qwen2-moe",
        "qwen2-moe",
        "Qwen2MoeConfig",
        "Qwen2MoeModel",
        dict(
            DECODER,
            num_experts=4,
            num_experts_per_tok=2,
            moe_intermediate_size=32,
            shared_expert_intermediate_size=32,
        ),
        "text",
    ),
    (
        "xglm",
        "xglm",
        "XGLMConfig",
        "XGLMModel",
        dict(
            num_layers=1,
            d_model=32,
            attention_heads=2,
            ffn_dim=64,
            max_position_embeddings=32,
            vocab_size=V,
        ),
        "text",
    ),
    ("biogpt", "biogpt", "BioGptConfig", "BioGptModel", BERTLIKE, "text"),
    (
        "ctrl",
        "ctrl",
        "CTRLConfig",
        "CTRLModel",
        dict(n_layer=1, n_embd=32, n_head=2, dff=64, n_positions=32, vocab_size=V),
        "text",
    ),
    (
        "xlnet",
        "xlnet",
        "XLNetConfig",
        "XLNetModel",
        dict(n_layer=1, d_model=32, n_head=2, d_inner=64, vocab_size=V),
        "text",
    ),
    (
        "mamba",
        "mamba",
        "MambaConfig",
        "MambaModel",
        dict(num_hidden_layers=1, hidden_size=32, state_size=4, vocab_size=V),
        "text",
    ),
    (
        "rwkv",
        "rwkv",
        "RwkvConfig",
        "RwkvModel",
        dict(
            num_hidden_layers=2,
            hidden_size=32,
            attention_hidden_size=32,
            intermediate_size=64,
            context_length=32,
            vocab_size=V,
        ),
        "text",
    ),
    # ---- encoder-decoders
    ("t5", "t5", "T5Config", "T5Model", T5LIKE, "seq2seq"),
    ("t5-encoder", "t5", "T5Config", "T5EncoderModel", T5LIKE, "text"),
    ("mt5", "t5", "MT5Config", "MT5Model", T5LIKE, "seq2seq"),
    (
        "longt5",
        "longt5",
        "LongT5Config",
        "LongT5Model",
        dict(T5LIKE, local_radius=2),
        "seq2seq",
    ),
    ("bart", "bart", "BartConfig", "BartModel", BARTLIKE, "seq2seq"),
    ("mbart", "bart", "MBartConfig", "MBartModel", BARTLIKE, "seq2seq"),
    ("pegasus", "bart", "PegasusConfig", "PegasusModel", BARTLIKE, "seq2seq"),
    (
        "marian",
        "bart",
        "MarianConfig",
        "MarianMTModel",
        dict(BARTLIKE, decoder_start_token_id=0, pad_token_id=0),
        "seq2seq",
    ),
    ("m2m100", "m2m100", "M2M100Config", "M2M100Model", BARTLIKE, "seq2seq"),
    (
        "prophetnet",
        "prophetnet",
        "ProphetNetConfig",
        "ProphetNetModel",
        dict(
            num_encoder_layers=1,
            num_decoder_layers=1,
            hidden_size=32,
            num_encoder_attention_heads=2,
            num_decoder_attention_heads=2,
            encoder_ffn_dim=64,
            decoder_ffn_dim=64,
            ngram=2,
            vocab_size=V,
            max_position_embeddings=32,
        ),
        "seq2seq",
    ),
    # ---- vision
    ("vit", "vit", "ViTConfig", "ViTModel", VITLIKE, "image"),
    ("vit-cls", "vit", "ViTConfig", "ViTForImageClassification", VITLIKE, "image"),
    ("deit", "vit", "DeiTConfig", "DeiTModel", VITLIKE, "image"),
    (
        "beit",
        "beit",
        "BeitConfig",
        "BeitModel",
        dict(VITLIKE, use_relative_position_bias=True),
        "image",
    ),
    ("clip-vision", "clip", "CLIPVisionConfig", "CLIPVisionModel", VITLIKE, "image"),
    (
        "siglip-vision",
        "clip",
        "SiglipVisionConfig",
        "SiglipVisionModel",
        VITLIKE,
        "image",
    ),
    ("dinov2", "dinov2", "Dinov2Config", "Dinov2Model", VITLIKE, "image"),
    (
        "yolos",
        "yolos",
        "YolosConfig",
        "YolosModel",
        dict(VITLIKE, image_size=[32, 32], num_detection_tokens=4),
        "image",
    ),
    (
        "swin",
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
    (
        "swinv2",
        "swin",
        "Swinv2Config",
        "Swinv2Model",
        dict(
            image_size=32,
            patch_size=4,
            embed_dim=16,
            depths=[1, 1],
            num_heads=[2, 2],
            window_size=4,
        ),
        "image",
    ),
    (
        "convnext",
        "convnext",
        "ConvNextConfig",
        "ConvNextModel",
        dict(num_stages=2, hidden_sizes=[16, 32], depths=[1, 1]),
        "image",
    ),
    (
        "convnextv2",
        "convnext",
        "ConvNextV2Config",
        "ConvNextV2Model",
        dict(num_stages=2, hidden_sizes=[16, 32], depths=[1, 1]),
        "image",
    ),
    (
        "resnet",
        "hf-resnet",
        "ResNetConfig",
        "ResNetModel",
        dict(
            embedding_size=16, hidden_sizes=[16, 32], depths=[1, 1], layer_type="basic"
        ),
        "image",
    ),
    (
        "regnet",
        "hf-resnet",
        "RegNetConfig",
        "RegNetModel",
        dict(embedding_size=16, hidden_sizes=[16, 32], depths=[1, 1], groups_width=8),
        "image",
    ),
    (
        "mobilevit",
        "mobilevit",
        "MobileViTConfig",
        "MobileViTModel",
        dict(
            image_size=32,
            hidden_sizes=[16, 16, 16],
            neck_hidden_sizes=[8, 8, 16, 16, 16, 16, 32],
            num_attention_heads=2,
            patch_size=2,
        ),
        "image",
    ),
    (
        "segformer",
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
    (
        "levit",
        "levit",
        "LevitConfig",
        "LevitModel",
        dict(
            image_size=32,
            hidden_sizes=[16, 32],
            num_attention_heads=[2, 2],
            depths=[1, 1],
            key_dim=[8, 8],
            drop_path_rate=[0.0, 0.0],
            mlp_ratio=[2, 2],
            attention_ratio=[2, 2],
            down_ops=[["Subsample", 8, 2, 2, 2, 2]],
        ),
        "image",
    ),
    (
        "poolformer",
        "poolformer",
        "PoolFormerConfig",
        "PoolFormerModel",
        dict(
            num_encoder_blocks=2,
            depths=[1, 1],
            hidden_sizes=[16, 32],
            patch_sizes=[7, 3],
            strides=[4, 2],
            padding=[2, 1],
        ),
        "image",
    ),
    (
        "cvt",
        "cvt",
        "CvtConfig",
        "CvtModel",
        dict(
            embed_dim=[16, 32],
            num_heads=[1, 2],
            depth=[1, 1],
            patch_sizes=[7, 3],
            patch_stride=[4, 2],
            patch_padding=[2, 1],
            mlp_ratio=[2.0, 2.0],
            attention_drop_rate=[0.0, 0.0],
            drop_rate=[0.0, 0.0],
            drop_path_rate=[0.0, 0.0],
            qkv_bias=[True, True],
            cls_token=[False, True],
            qkv_projection_method=["dw_bn", "dw_bn"],
            kernel_qkv=[3, 3],
            padding_kv=[1, 1],
            stride_kv=[2, 2],
            padding_q=[1, 1],
            stride_q=[1, 1],
        ),
        "image",
    ),
    (
        "dpt",
        "dpt",
        "DPTConfig",
        "DPTModel",
        dict(VITLIKE, num_hidden_layers=4, backbone_out_indices=[0, 1, 2, 3]),
        "image",
    ),
    (
        "focalnet",
        "focalnet",
        "FocalNetConfig",
        "FocalNetModel",
        dict(
            image_size=32,
            patch_size=4,
            embed_dim=16,
            depths=[1, 1],
            focal_levels=[2, 2],
            focal_windows=[3, 3],
        ),
        "image",
    ),
    (
        "efficientnet",
        "efficientnet",
        "EfficientNetConfig",
        "EfficientNetModel",
        dict(
            image_size=32, width_coefficient=0.25, depth_coefficient=0.25, hidden_dim=64
        ),
        "image",
    ),
    (
        "bit",
        "bit",
        "BitConfig",
        "BitModel",
        dict(
            embedding_size=32,
            hidden_sizes=[32, 64],
            depths=[1, 1],
            layer_type="preactivation",
        ),
        "image",
    ),
    (
        "pvt",
        "pvt",
        "PvtConfig",
        "PvtModel",
        dict(
            image_size=32,
            num_encoder_blocks=2,
            depths=[1, 1],
            sequence_reduction_ratios=[2, 1],
            hidden_sizes=[16, 32],
            patch_sizes=[4, 2],
            strides=[4, 2],
            num_attention_heads=[1, 2],
            mlp_ratios=[2, 2],
        ),
        "image",
    ),
    (
        "detr",
        "detr",
        "DetrConfig",
        "DetrModel",
        dict(
            use_timm_backbone=False,
            backbone_config=dict(
                model_type="resnet",
                embedding_size=16,
                hidden_sizes=[16, 32],
                depths=[1, 1],
                layer_type="basic",
                out_features=["stage2"],
            ),
            d_model=32,
            encoder_layers=1,
            decoder_layers=1,
            encoder_attention_heads=2,
            decoder_attention_heads=2,
            encoder_ffn_dim=64,
            decoder_ffn_dim=64,
            num_queries=8,
            use_pretrained_backbone=False,
        ),
        "image",
    ),
    # ---- audio
    (
        "whisper-encoder",
        "whisper",
        "WhisperConfig",
        "models.whisper.modeling_whisper.WhisperEncoder",
        dict(
            encoder_layers=1,
            d_model=32,
            encoder_attention_heads=2,
            encoder_ffn_dim=64,
            num_mel_bins=16,
            max_source_positions=16,
            vocab_size=V,
        ),
        "audio-feat",
    ),
    (
        "wav2vec2",
        "wav2vec2",
        "Wav2Vec2Config",
        "Wav2Vec2Model",
        dict(
            BERTLIKE,
            conv_dim=(16, 16),
            conv_stride=(5, 2),
            conv_kernel=(10, 3),
            num_conv_pos_embeddings=16,
            num_conv_pos_embedding_groups=2,
        ),
        "audio-wave",
    ),
    (
        "hubert",
        "wav2vec2",
        "HubertConfig",
        "HubertModel",
        dict(
            BERTLIKE,
            conv_dim=(16, 16),
            conv_stride=(5, 2),
            conv_kernel=(10, 3),
            num_conv_pos_embeddings=16,
            num_conv_pos_embedding_groups=2,
        ),
        "audio-wave",
    ),
    (
        "ast",
        "vit",
        "ASTConfig",
        "ASTModel",
        dict(
            BERTLIKE,
            patch_size=8,
            num_mel_bins=16,
            max_length=32,
            frequency_stride=8,
            time_stride=8,
        ),
        "audio-spec",
    ),
]

HF_EXTRA = [
    # ---- head classes and the configurations users switch to after a first failure
    (
        "gpt2-seqcls",
        "gpt2",
        "GPT2Config",
        "GPT2ForSequenceClassification",
        dict(
            n_layer=1, n_embd=32, n_head=2, n_positions=32, vocab_size=V, pad_token_id=0
        ),
        "text",
    ),
    (
        "gpt2-nocache",
        "gpt2",
        "GPT2Config",
        "GPT2Model",
        dict(
            n_layer=1,
            n_embd=32,
            n_head=2,
            n_positions=32,
            vocab_size=V,
            use_cache=False,
        ),
        "text",
    ),
    (
        "llama-nocache",
        "llama",
        "LlamaConfig",
        "LlamaModel",
        dict(DECODER, use_cache=False),
        "text",
    ),
    (
        "llama-seqcls",
        "llama",
        "LlamaConfig",
        "LlamaForSequenceClassification",
        dict(DECODER, pad_token_id=0, use_cache=False),
        "text",
    ),
    (
        "mistral-nocache",
        "llama",
        "MistralConfig",
        "MistralModel",
        dict(DECODER, use_cache=False, sliding_window=4),
        "text",
    ),
    (
        "gemma2-nocache",
        "gemma",
        "Gemma2Config",
        "Gemma2Model",
        dict(DECODER, head_dim=16, sliding_window=4, use_cache=False),
        "text",
    ),
    (
        "phi3-nocache",
        "phi3",
        "Phi3Config",
        "Phi3Model",
        dict(DECODER, pad_token_id=0, use_cache=False),
        "text",
    ),
    (
        "falcon-nocache",
        "falcon",
        "FalconConfig",
        "FalconModel",
        dict(
            num_hidden_layers=1,
            hidden_size=32,
            num_attention_heads=2,
            vocab_size=V,
            use_cache=False,
        ),
        "text",
    ),
    (
        "bloom-nocache",
        "bloom",
        "BloomConfig",
        "BloomModel",
        dict(n_layer=1, hidden_size=32, n_head=2, vocab_size=V, use_cache=False),
        "text",
    ),
    (
        "opt-nocache",
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
            vocab_size=V,
            use_cache=False,
        ),
        "text",
    ),
    (
        "gpt-neox-nocache",
        "gpt-neox",
        "GPTNeoXConfig",
        "GPTNeoXModel",
        dict(DECODER, use_cache=False),
        "text",
    ),
    (
        "mixtral-nocache",
        "mixtral",
        "MixtralConfig",
        "MixtralModel",
        dict(DECODER, num_local_experts=4, num_experts_per_tok=2, use_cache=False),
        "text",
    ),
    (
        "qwen2-moe-nocache",
        "qwen2-moe",
        "Qwen2MoeConfig",
        "Qwen2MoeModel",
        dict(
            DECODER,
            num_experts=4,
            num_experts_per_tok=2,
            moe_intermediate_size=32,
            shared_expert_intermediate_size=32,
            use_cache=False,
        ),
        "text",
    ),
    (
        "codegen-nocache",
        "codegen",
        "CodeGenConfig",
        "CodeGenModel",
        dict(
            n_layer=1,
            n_embd=32,
            n_head=2,
            rotary_dim=8,
            n_positions=32,
            n_ctx=32,
            vocab_size=V,
            use_cache=False,
        ),
        "text",
    ),
    (
        "mpt-nocache",
        "mpt",
        "MptConfig",
        "MptModel",
        dict(
            n_layers=1,
            d_model=32,
            n_heads=2,
            max_seq_len=32,
            vocab_size=V,
            use_cache=False,
        ),
        "text",
    ),
    (
        "cohere-nocache",
        "cohere",
        "CohereConfig",
        "CohereModel",
        dict(DECODER, use_cache=False),
        "text",
    ),
    (
        "gptj-nocache",
        "gptj",
        "GPTJConfig",
        "GPTJModel",
        dict(
            n_layer=1,
            n_embd=32,
            n_head=2,
            rotary_dim=8,
            n_positions=32,
            vocab_size=V,
            use_cache=False,
        ),
        "text",
    ),
    (
        "xglm-nocache",
        "xglm",
        "XGLMConfig",
        "XGLMModel",
        dict(
            num_layers=1,
            d_model=32,
            attention_heads=2,
            ffn_dim=64,
            max_position_embeddings=32,
            vocab_size=V,
            use_cache=False,
        ),
        "text",
    ),
    (
        "bart-nocache",
        "bart",
        "BartConfig",
        "BartModel",
        dict(BARTLIKE, use_cache=False),
        "seq2seq",
    ),
    (
        "t5-nocache",
        "t5",
        "T5Config",
        "T5Model",
        dict(T5LIKE, use_cache=False),
        "seq2seq",
    ),
    (
        "t5-cg",
        "t5",
        "T5Config",
        "T5ForConditionalGeneration",
        dict(T5LIKE, use_cache=False),
        "seq2seq",
    ),
    ("bert-qa", "bert", "BertConfig", "BertForQuestionAnswering", BERTLIKE, "text"),
    (
        "distilbert-cls",
        "distilbert",
        "DistilBertConfig",
        "DistilBertForSequenceClassification",
        dict(
            n_layers=1,
            dim=32,
            n_heads=2,
            hidden_dim=64,
            max_position_embeddings=32,
            vocab_size=V,
        ),
        "text",
    ),
    (
        "whisper",
        "whisper",
        "WhisperConfig",
        "WhisperModel",
        dict(
            encoder_layers=1,
            decoder_layers=1,
            d_model=32,
            encoder_attention_heads=2,
            decoder_attention_heads=2,
            encoder_ffn_dim=64,
            decoder_ffn_dim=64,
            num_mel_bins=16,
            max_source_positions=16,
            max_target_positions=32,
            vocab_size=V,
            pad_token_id=0,
            bos_token_id=1,
            eos_token_id=2,
            decoder_start_token_id=1,
            use_cache=False,
        ),
        "audio-seq2seq",
    ),
    ("vitmae", "vit", "ViTMAEConfig", "ViTMAEModel", VITLIKE, "image"),
    (
        "wav2vec2-ctc",
        "wav2vec2",
        "Wav2Vec2Config",
        "Wav2Vec2ForCTC",
        dict(
            BERTLIKE,
            conv_dim=(16, 16),
            conv_stride=(5, 2),
            conv_kernel=(10, 3),
            num_conv_pos_embeddings=16,
            num_conv_pos_embedding_groups=2,
        ),
        "audio-wave",
    ),
    (
        "swin-cls",
        "swin",
        "SwinConfig",
        "SwinForImageClassification",
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
    (
        "segformer-seg",
        "segformer",
        "SegformerConfig",
        "SegformerForSemanticSegmentation",
        dict(
            num_encoder_blocks=2,
            depths=[1, 1],
            sr_ratios=[2, 1],
            hidden_sizes=[16, 32],
            patch_sizes=[7, 3],
            strides=[4, 2],
            num_attention_heads=[1, 2],
            mlp_ratios=[2, 2],
            decoder_hidden_size=32,
        ),
        "image",
    ),
    (
        "detr-det",
        "detr",
        "DetrConfig",
        "DetrForObjectDetection",
        dict(
            use_timm_backbone=False,
            backbone_config=dict(
                model_type="resnet",
                embedding_size=16,
                hidden_sizes=[16, 32],
                depths=[1, 1],
                layer_type="basic",
                out_features=["stage2"],
            ),
            d_model=32,
            encoder_layers=1,
            decoder_layers=1,
            encoder_attention_heads=2,
            decoder_attention_heads=2,
            encoder_ffn_dim=64,
            decoder_ffn_dim=64,
            num_queries=8,
            use_pretrained_backbone=False,
            num_labels=3,
        ),
        "image",
    ),
]
HF += HF_EXTRA

# (name, family, builder, builder kwargs, kind, image side)
TV = [
    ("tv-resnet18", "tv-classification", "resnet18", dict(num_classes=10), "tv", 32),
    (
        "tv-mobilenet_v3_small",
        "tv-classification",
        "mobilenet_v3_small",
        dict(num_classes=10),
        "tv",
        32,
    ),
    (
        "tv-efficientnet_b0",
        "tv-classification",
        "efficientnet_b0",
        dict(num_classes=10),
        "tv",
        32,
    ),
    (
        "tv-regnet_y_400mf",
        "tv-classification",
        "regnet_y_400mf",
        dict(num_classes=10),
        "tv",
        32,
    ),
    (
        "tv-densenet121",
        "tv-classification",
        "densenet121",
        dict(num_classes=10),
        "tv",
        32,
    ),
    (
        "tv-shufflenet_v2_x0_5",
        "tv-classification",
        "shufflenet_v2_x0_5",
        dict(num_classes=10),
        "tv",
        32,
    ),
    (
        "tv-squeezenet1_0",
        "tv-classification",
        "squeezenet1_0",
        dict(num_classes=10),
        "tv",
        32,
    ),
    (
        "tv-mnasnet0_5",
        "tv-classification",
        "mnasnet0_5",
        dict(num_classes=10),
        "tv",
        32,
    ),
    (
        "tv-googlenet",
        "tv-classification",
        "googlenet",
        dict(num_classes=10, aux_logits=False, init_weights=False),
        "tv",
        32,
    ),
    (
        "tv-inception_v3",
        "tv-classification",
        "inception_v3",
        dict(num_classes=10, aux_logits=False, init_weights=False),
        "tv",
        80,
    ),
    (
        "tv-convnext_tiny",
        "tv-classification",
        "convnext_tiny",
        dict(num_classes=10),
        "tv",
        32,
    ),
    (
        "tv-vit_b_16",
        "tv-vit",
        "vit_b_16",
        dict(num_classes=10, image_size=32),
        "tv",
        32,
    ),
    ("tv-swin_t", "tv-swin", "swin_t", dict(num_classes=10), "tv", 64),
    ("tv-maxvit_t", "tv-vit", "maxvit_t", dict(num_classes=10), "tv", 64),
    (
        "tv-fasterrcnn_mobilenet",
        "tv-detection",
        "detection.fasterrcnn_mobilenet_v3_large_320_fpn",
        dict(num_classes=3, weights_backbone=None, min_size=64, max_size=64),
        "tv-det",
        64,
    ),
    (
        "tv-retinanet",
        "tv-detection",
        "detection.retinanet_resnet50_fpn",
        dict(num_classes=3, weights_backbone=None, min_size=64, max_size=64),
        "tv-det",
        64,
    ),
    (
        "tv-ssdlite",
        "tv-detection",
        "detection.ssdlite320_mobilenet_v3_large",
        dict(num_classes=3, weights_backbone=None),
        "tv-det",
        64,
    ),
    (
        "tv-fcos",
        "tv-detection",
        "detection.fcos_resnet50_fpn",
        dict(num_classes=3, weights_backbone=None, min_size=64, max_size=64),
        "tv-det",
        64,
    ),
    (
        "tv-maskrcnn",
        "tv-detection",
        "detection.maskrcnn_resnet50_fpn",
        dict(num_classes=3, weights_backbone=None, min_size=64, max_size=64),
        "tv-det",
        64,
    ),
    (
        "tv-deeplabv3_mobilenet",
        "tv-segmentation",
        "segmentation.deeplabv3_mobilenet_v3_large",
        dict(num_classes=3, weights_backbone=None),
        "tv",
        64,
    ),
    (
        "tv-lraspp",
        "tv-segmentation",
        "segmentation.lraspp_mobilenet_v3_large",
        dict(num_classes=3, weights_backbone=None),
        "tv",
        64,
    ),
    (
        "tv-fcn_resnet50",
        "tv-segmentation",
        "segmentation.fcn_resnet50",
        dict(num_classes=3, weights_backbone=None, aux_loss=False),
        "tv",
        32,
    ),
    ("tv-r3d_18", "tv-video", "video.r3d_18", dict(num_classes=10), "tv-video", 32),
    ("tv-s3d", "tv-video", "video.s3d", dict(num_classes=10), "tv-video", 32),
    (
        "tv-mvit_v2_s",
        "tv-video",
        "video.mvit_v2_s",
        dict(num_classes=10),
        "tv-video",
        224,
    ),
    (
        "tv-raft_small",
        "tv-optical-flow",
        "optical_flow.raft_small",
        dict(),
        "tv-flow",
        128,
    ),
]

# ---------------------------------------------------------------- model-file rendering
TEXT_INPUTS = {
    "text": ["input_ids", "attention_mask"],
    "seq2seq": ["input_ids", "attention_mask", "decoder_input_ids"],
}


def _input_lines(kind: str, size: int = 32) -> tuple[list[str], list[str], dict]:
    """(lines building the inputs in example_inputs(), the forward parameter names,
    dynamic dims per name)."""
    g = "    g = torch.Generator().manual_seed(1)"
    B = "BATCH"
    if kind in TEXT_INPUTS:
        lines = [
            g,
            f"    input_ids = torch.randint(1, {V}, (2, 8), generator=g)",
            "    attention_mask = torch.ones(2, 8, dtype=torch.long)",
            "    attention_mask[1, 5:] = 0  # the second row is padded",
        ]
        dims = {"input_ids": {0: B, 1: "SEQ"}, "attention_mask": {0: B, 1: "SEQ"}}
        if kind == "seq2seq":
            lines.append(
                f"    decoder_input_ids = torch.randint(1, {V}, (2, 4), generator=g)"
            )
            dims["decoder_input_ids"] = {0: B, 1: "DEC_SEQ"}
        return lines, TEXT_INPUTS[kind], dims
    if kind == "image":
        return (
            [g, "    pixel_values = torch.randn(2, 3, 32, 32, generator=g)"],
            ["pixel_values"],
            {"pixel_values": {0: B}},
        )
    if kind == "audio-feat":
        return (
            [g, "    input_features = torch.randn(2, 16, 32, generator=g)"],
            ["input_features"],
            {"input_features": {0: B}},
        )
    if kind == "audio-seq2seq":
        return (
            [
                g,
                "    input_features = torch.randn(2, 16, 32, generator=g)",
                f"    decoder_input_ids = torch.randint(1, {V}, (2, 4), generator=g)",
            ],
            ["input_features", "decoder_input_ids"],
            {"input_features": {0: B}, "decoder_input_ids": {0: B, 1: "DEC_SEQ"}},
        )
    if kind == "audio-wave":
        return (
            [g, "    input_values = torch.randn(2, 800, generator=g)"],
            ["input_values"],
            {"input_values": {0: B}},
        )
    if kind == "audio-spec":
        return (
            [g, "    input_values = torch.randn(2, 32, 16, generator=g)"],
            ["input_values"],
            {"input_values": {0: B}},
        )
    if kind == "tv":
        return (
            [g, f"    x = torch.randn(2, 3, {size}, {size}, generator=g)"],
            ["x"],
            {"x": {0: B}},
        )
    if kind == "tv-video":
        return (
            [
                g,
                f"    x = torch.randn(2, 3, {8 if size < 100 else 16}, {size}, {size}, generator=g)",
            ],
            ["x"],
            {"x": {0: B}},
        )
    if kind == "tv-det":
        return (
            [
                g,
                f"    images = [torch.rand(3, {size}, {size}, generator=g) for _ in range(2)]",
            ],
            ["images"],
            {"images": [{1: "HEIGHT", 2: "WIDTH"}, {1: "HEIGHT", 2: "WIDTH"}]},
        )
    if kind == "tv-flow":
        return (
            [
                g,
                f"    image1 = torch.randn(2, 3, {size}, {size}, generator=g)",
                f"    image2 = torch.randn(2, 3, {size}, {size}, generator=g)",
            ],
            ["image1", "image2"],
            {"image1": {0: B}, "image2": {0: B}},
        )
    raise ValueError(kind)


def _kwargs(d: dict) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in d.items())


def find(name: str):
    for r in HF:
        if r[0] == name:
            return "hf", r
    for r in TV:
        if r[0] == name:
            return "tv", r
    raise KeyError(name)


def render(name: str, mode: str, params: list[str] | None) -> str:
    """The model file for one case. `params`: the model's forward() parameter names,
    so inputs are passed positionally with None for the parameters in between."""
    src, r = find(name)
    if src == "hf":
        _, family, cfg, cls, kw, kind = r[:6]
        size = 32
        module, _, clsname = cls.rpartition(".")
        imports = (
            f"from transformers import {cfg}\nfrom transformers.{module} import {clsname}"
            if module
            else f"from transformers import {cfg}, {clsname}"
        )
        body = (
            f"    config = {cfg}({_kwargs(kw)})\n    return {clsname}(config).eval()\n"
        )
        title = f"{clsname} ({family}) from a tiny random config, no weights"
    else:
        _, family, builder, kw, kind, size = r
        module, _, fn = builder.rpartition(".")
        imports = f"from torchvision.models{'.' + module if module else ''} import {fn}"
        body = f"    return {fn}(weights=None, {_kwargs(kw)}).eval()\n"
        title = f"torchvision {fn} ({family}), random init, no weights"
    lines, names, dims = _input_lines(kind, size)
    if params:  # positional, with None for skipped parameters
        if not any(
            n in params for n in names
        ):  # e.g. LRASPP.forward(input): positional anyway
            params = names
        names = [n for n in names if n in params]  # e.g. FNet takes no attention_mask
        if kind == "text":  # no None placeholders: stop at the first parameter not fed
            idx = [params.index(n) for n in names]
            names = [n for i, n in zip(idx, names) if i == idx[0] + names.index(n)]
        last = max(params.index(n) for n in names)
        args = [n if n in names else "None" for n in params[: last + 1]]
    else:
        args = names
    lines = [
        ln for ln in lines if "attention_mask" not in ln or "attention_mask" in args
    ]
    dyn = ""
    if mode == "dynamic":
        specs = [
            repr(dims.get(a)).replace("'", "") if a in dims else "None" for a in args
        ]
        dims_src = {
            "BATCH": 'Dim("batch", min=1, max=64)',
            "SEQ": 'Dim("seq", min=2, max=32)',
            "DEC_SEQ": 'Dim("dec_seq", min=2, max=32)',
            "HEIGHT": 'Dim("height", min=32, max=256)',
            "WIDTH": 'Dim("width", min=32, max=256)',
        }
        used = "".join(specs)
        dyn = "\n" + "".join(
            f"{k} = {v}\n" for k, v in dims_src.items() if re.search(rf"\b{k}\b", used)
        )
        dyn += f"DYNAMIC_SHAPES = ({', '.join(specs)},)\n"
    how = {
        "fx": "torch.fx.Tracer().trace (plain fx leaves) then cuvil.frontend.lower(frontend='fx', gm=...)",
        "export": "torch.export.export(strict=False)",
        "export-strict": "torch.export.export(strict=True)",
        "dynamic": "torch.export.export(strict=False, dynamic_shapes=DYNAMIC_SHAPES)",
    }[mode]
    return (
        f'"""{title}; captured with {how}.\n'
        f'Generated by scripts/triage_sweep.py (case {name}, mode {mode})."""\n\n'
        "import torch\n"
        + ("from torch.export import Dim\n" if mode == "dynamic" else "")
        + "\nimport _shim  # noqa: F401,I001 -- torchvision C++ op schemas, before transformers/torchvision\n"
        f"{imports}\n{dyn}\n\n"
        "def Model():\n    torch.manual_seed(0)\n" + body + "\n\n"
        "def example_inputs():\n"
        + "\n".join(lines)
        + f"\n    return ({', '.join(args)},)\n"
    )


# ------------------------------------------------------------------------- capturing
_NUM = re.compile(r"(?<![A-Za-z])\d+(\.\d+)?|(?<=_)\d+|0x[0-9a-f]+")
_QUOTED_TENSOR = re.compile(r"\b(?:p|b|c|arg|l|L|s|u)_?[\w.]*?_\d+\b")


def normalise(msg: str) -> str:
    first = next((ln.strip() for ln in str(msg).splitlines() if ln.strip()), "")
    # absolute paths, and Cuvil's cwd-relative ones (.venv/lib/...), -> site-relative
    first = re.sub(r"[\w./+-]*?/site-packages/", "", first)
    first = re.sub(r"/\S*?/compiler/", "cuvil/", first)
    first = re.sub(r"0x[0-9a-fA-F]+", "ADDR", first)
    first = re.sub(r"\b[suc]\d+\b", "SYM", first)  # symbolic sizes s0, u3
    first = re.sub(
        r"\b([A-Za-z_][A-Za-z_]*?)_\d+\b", r"\1_N", first
    )  # node names add_3
    first = re.sub(r"(?<![A-Za-z_])\d+(\.\d+)?", "N", first)
    return first[:200]


# the folder the cuvil package is imported from (an editable install may point
# at another checkout than this script's)
_CUVIL_SPEC = importlib.util.find_spec("cuvil")
_CUVIL_DIR = (
    Path(_CUVIL_SPEC.origin).parent
    if _CUVIL_SPEC and _CUVIL_SPEC.origin
    else ROOT / "compiler"
).as_posix() + "/"


def _rel(path: str) -> str:
    p = path.replace("\\", "/")
    if "site-packages/" in p:
        return p.split("site-packages/", 1)[1]
    if p.startswith(_CUVIL_DIR):  # Cuvil's own frames, wherever the clone lives
        return "cuvil/" + p[len(_CUVIL_DIR) :]
    return Path(p).name


def _is_lib(path: str) -> bool:
    p = _rel(path)
    return p.startswith(LIB_PREFIXES)


def describe(exc: BaseException) -> dict:
    frames = traceback.extract_tb(exc.__traceback__)
    lib = [f for f in frames if _is_lib(f.filename)]
    inner = lib[-1] if lib else (frames[-1] if frames else None)
    where = f"{_rel(inner.filename)}:{inner.name}" if inner else "?"
    chain, e = [], exc
    while e is not None and len(chain) < 4:
        chain.append(f"{type(e).__name__}: {str(e)[:3000]}")
        e = e.__cause__ or e.__context__
    return {
        "exc_type": type(exc).__name__,
        "message": str(exc)[:6000],
        "where": where,
        "signature": f"{type(exc).__name__}: {normalise(str(exc))} @ {where}",
        "lib_frames": [f"{_rel(f.filename)}:{f.lineno}:{f.name}" for f in lib][-12:],
        "chain": chain,
        "traceback": "".join(traceback.format_exception(exc))[-12000:],
    }


def load_file(path: Path):

    spec = importlib.util.spec_from_file_location(
        f"case_{path.stem}".replace("-", "_"), path
    )
    mod = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))
    try:
        spec.loader.exec_module(mod)
    finally:
        sys.path.remove(str(path.parent))
    return mod


def capture(mod, mode: str) -> None:
    """Capture + lower one model file's model; raises on failure."""
    import torch

    import cuvil.frontend

    model = mod.Model()
    inputs = mod.example_inputs()
    if mode == "fx":
        graph = torch.fx.Tracer().trace(model)
        gm = torch.fx.GraphModule(model, graph)
        cuvil.frontend.lower(model, inputs, frontend="fx", gm=gm)
        return
    kw = {}
    if mode == "dynamic":
        kw["dynamic_shapes"] = mod.DYNAMIC_SHAPES
    ep = torch.export.export(
        model, tuple(inputs), strict=(mode == "export-strict"), **kw
    )
    cuvil.frontend.lower(ep, inputs, frontend="export")


def run_case(path: Path, mode: str, timeout: int) -> dict:
    import signal

    import torch

    def alarm(*_):
        raise TimeoutError(f"capture exceeded {timeout}s")

    signal.signal(signal.SIGALRM, alarm)
    mod = load_file(path)
    out: dict = {"file": str(path), "mode": mode}
    t = time.time()
    signal.alarm(timeout)
    try:
        capture(mod, mode)
        out["status"] = "ok"
    except TimeoutError as e:
        out.update(status="timeout", **describe(e))
    except Exception as e:  # noqa: BLE001 -- every failure is data
        out.update(status="failed", **describe(e))
    finally:
        signal.alarm(0)
    out["seconds"] = round(time.time() - t, 2)
    if out["status"] == "failed":  # does the model run eagerly?
        try:
            with torch.no_grad():
                mod.Model()(*mod.example_inputs())
            out["eager"] = "ok"
        except Exception as e:  # noqa: BLE001
            out["eager"] = (
                f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"
            )
    return out


def worker(name: str, modes: list[str], out: Path, timeout: int) -> None:
    """One architecture, every mode; one JSON line per case on stdout."""
    sys.path.insert(0, str(SHIM.parent))
    import inspect

    import _shim  # noqa: F401

    cases = out / "cases"
    cases.mkdir(parents=True, exist_ok=True)
    (cases / "_shim.py").write_text(SHIM.read_text())
    try:
        mod = load_file(_write(cases, name, "export", None))
        params = [p for p in inspect.signature(mod.Model().forward).parameters]
    except Exception as e:  # noqa: BLE001
        print(
            json.dumps(
                {"name": name, "mode": "build", "status": "build-error", **describe(e)}
            ),
            flush=True,
        )
        return
    for mode in modes:
        path = _write(cases, name, mode, params)
        r = run_case(path, mode, timeout)
        r["name"] = name
        print(json.dumps(r), flush=True)


def _write(folder: Path, name: str, mode: str, params) -> Path:
    path = folder / f"{name.replace('-', '_')}__{mode.replace('-', '_')}.py"
    path.write_text(render(name, mode, params))
    return path


def family(name: str) -> str:
    return find(name)[1][1]


def sweep(
    names: list[str],
    modes: list[str],
    out: Path,
    timeout: int,
    script: Path | None = None,
    family_of=None,
) -> None:
    """`script` runs each `--worker` (default: this file); `family_of(name)` names a
    case's family (default: `family`)."""
    script, family_of = script or Path(__file__), family_of or family
    out.mkdir(parents=True, exist_ok=True)
    results = out / "results.jsonl"
    done = set()
    if results.exists():
        done = {
            json.loads(ln)["name"]
            for ln in results.read_text().splitlines()
            if ln.strip()
        }
    for name in names:
        if name in done:
            continue
        t = time.time()
        cmd = [
            sys.executable,
            str(script),
            "--worker",
            name,
            "--out",
            str(out),
            "--modes",
            ",".join(modes),
            "--timeout",
            str(timeout),
        ]
        try:
            p = subprocess.run(
                cmd,
                capture_output=True,
                text=True,
                cwd=ROOT,
                timeout=timeout * len(modes) + 60,
            )
            lines = [ln for ln in p.stdout.splitlines() if ln.startswith("{")]
            if p.returncode != 0 and not lines:
                lines = [
                    json.dumps(
                        {
                            "name": name,
                            "mode": "?",
                            "status": "crash",
                            "message": p.stderr[-2000:],
                            "rc": p.returncode,
                        }
                    )
                ]
        except subprocess.TimeoutExpired as e:
            so = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
            lines = [ln for ln in so.splitlines() if ln.startswith("{")]
            lines.append(json.dumps({"name": name, "mode": "?", "status": "timeout"}))
        with results.open("a") as f:
            for ln in lines:
                r = json.loads(ln)
                r["family"] = family_of(name)
                f.write(json.dumps(r) + "\n")
                print(
                    f"{name:24} {r['mode']:14} {r['status']:11} {r.get('signature', '')[:150]}",
                    flush=True,
                )
        print(f"  ({time.time() - t:.0f}s)", flush=True)


def check(folder: Path, timeout: int, script: Path | None = None) -> int:
    """Re-capture every labelled sample under its recorded mode; confirm the signature
    (`script --check-one` captures each one: default this file)."""
    labels = json.loads((folder / "labels.json").read_text())
    rows = []
    for fname, lab in sorted(labels.items()):
        mode = "dynamic" if lab.get("dynamic") else lab["frontend"]
        cmd = [
            sys.executable,
            str(script or Path(__file__)),
            "--check-one",
            str(folder / fname),
            "--modes",
            mode,
            "--timeout",
            str(timeout),
        ]
        try:
            p = subprocess.run(
                cmd, capture_output=True, text=True, cwd=ROOT, timeout=timeout + 60
            )
            ln = [x for x in p.stdout.splitlines() if x.startswith("{")]
            r = json.loads(ln[-1]) if ln else {"status": "crash"}
        except subprocess.TimeoutExpired:
            r = {"status": "timeout"}
        same = r.get("signature") == lab["signature"]
        verdict = "same" if same else ("ok!" if r["status"] == "ok" else "changed")
        rows.append((fname, mode, verdict, r.get("signature", r["status"])))
        print(
            f"{fname:44} {mode:14} {verdict:8} {'' if same else r.get('signature', '')[:120]}",
            flush=True,
        )
    n_same = sum(v == "same" for _, _, v, _ in rows)
    print(f"\n{n_same}/{len(rows)} samples fail with their recorded signature")
    return 0 if n_same == len(rows) else 1


def summary(files: list[Path], family_of=None, modes=MODES) -> None:
    """Per-mode outcome counts over sweep results (a case in a later file replaces its
    rows in earlier ones: a rerun after fixing a recipe or the harness)."""
    import collections

    family_of = family_of or family

    rows: dict = {}
    for fn in files:  # a case rerun in a later file replaces all its earlier rows
        new = [json.loads(ln) for ln in fn.read_text().splitlines() if ln.strip()]
        rerun = {r["name"] for r in new}
        rows = {k: v for k, v in rows.items() if k[0] not in rerun}
        rows.update({(r["name"], r["mode"]): r for r in new})
    names = {n for n, _ in rows}
    broken = {n for (n, m), r in rows.items() if m in ("build", "?")}
    swept = names - broken
    print(
        f"{len(names)} cases, {len(swept)} built and captured, "
        f"{len({family_of(n) for n in swept})} families; not built: {', '.join(sorted(broken)) or '-'}"
    )
    print("| mode | ok | failed | timeout |\n|---|---|---|---|")
    for mode in modes:
        c = collections.Counter(
            r["status"] for (n, m), r in rows.items() if m == mode and n in swept
        )
        print(f"| {mode} | {c['ok']} | {c['failed']} | {c['timeout']} |")
    eager = sorted({n for (n, m), r in rows.items() if r.get("eager", "ok") != "ok"})
    print(f"eager also fails: {', '.join(eager) or '-'}")
    sigs = {r["signature"] for r in rows.values() if r["status"] == "failed"}
    print(f"distinct failure signatures: {len(sigs)}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("/tmp/triage_sweep"))
    ap.add_argument("--only", default="", help="comma-separated case names")
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--timeout", type=int, default=120, help="seconds per capture")
    ap.add_argument("--list", action="store_true")
    ap.add_argument(
        "--check", type=Path, help="re-capture the labelled samples in this folder"
    )
    ap.add_argument(
        "--summary", type=Path, nargs="+", help="print counts of results.jsonl files"
    )
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--check-one", type=Path, help=argparse.SUPPRESS)
    a = ap.parse_args()
    modes = a.modes.split(",")
    if a.worker:
        worker(a.worker, modes, a.out, a.timeout)
        return 0
    if a.check_one:
        sys.path.insert(0, str(a.check_one.parent))
        import _shim  # noqa: F401

        print(json.dumps(run_case(a.check_one, modes[0], a.timeout)))
        return 0
    if a.summary:
        summary(a.summary)
        return 0
    if a.check:
        return check(a.check, a.timeout)
    names = a.only.split(",") if a.only else [r[0] for r in HF + TV]
    if a.list:
        print("\n".join(names))
        return 0
    sweep(names, modes, a.out, a.timeout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
