"""An image-blind baseline: the longer caption wins."""

from vlc_harness import TextOnlyModel, hookimpl


class CaptionLength(TextOnlyModel):
    """Scores a caption by its length in characters, never looking at the image."""

    type_name = "caption_length"

    def score_texts(self, texts):
        return [float(len(text)) for text in texts]


@hookimpl
def register_models(register):
    register(CaptionLength)
