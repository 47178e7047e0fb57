"""sacreBLEU-shaped tokenizers (being assembled; the lead merges the other modules here)."""

from .tokenizer_ter import TercomTokenizer

__all__ = ["TercomTokenizer"]
