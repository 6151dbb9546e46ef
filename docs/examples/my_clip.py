"""An embedding model: any open_clip architecture and pretrained tag, scored by cosine similarity."""

import importlib.metadata
from dataclasses import dataclass

from vlc_harness import EmbeddingModel, Identity, hookimpl


@dataclass(frozen=True)
class MyClipParams:
    """Which architecture, which weights."""

    arch: str = "ViT-B-32-quickgelu"  # OpenAI's weights need QuickGELU; plain ViT-B-32 builds GELU
    pretrained: str | None = "openai"  # None: random weights from seed 0 (tests)


class MyClip(EmbeddingModel):
    """open_clip's image and text towers; the raw caption, the default eval transform."""

    type_name = "my_clip"
    Params = MyClipParams

    def identify(self):  # the weights, exactly: the tag (or seed) under this open_clip version
        version = importlib.metadata.version("open_clip_torch")
        weights = f"open_clip=={version}:{self.params.arch}/{self.params.pretrained or 'seed-0'}"
        return Identity(weights=weights, dtype="fp32", protocol="embed/cosine")

    def load(self, device):
        import open_clip
        import torch

        torch.manual_seed(0)
        self.torch, self.device = torch, device
        p = self.params
        self.net, _, self.transform = open_clip.create_model_and_transforms(p.arch, p.pretrained, device=device)
        self.tokenizer = open_clip.get_tokenizer(p.arch)

    def preprocess(self, image):
        return self.transform(image)

    def embed_images(self, batch):
        with self.torch.no_grad():
            return self.net.encode_image(self.torch.stack(batch).to(self.device)).float().cpu().numpy()

    def embed_texts(self, texts):
        with self.torch.no_grad():
            return self.net.encode_text(self.tokenizer(texts).to(self.device)).float().cpu().numpy()

    @classmethod
    def conformance_example(cls, tmp_path):
        return {"arch": "ViT-S-32", "pretrained": None}


@hookimpl
def register_models(register):
    register(MyClip)
