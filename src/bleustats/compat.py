"""sacreBLEU's ``compat`` functions, so ``import bleustats as sacrebleu`` keeps working.

The code lives in :mod:`bleustats.metrics.bleu`; this module only gives it the
path sacreBLEU code imports it from (``sacrebleu.compat.corpus_bleu``).

Examples
--------
>>> import bleustats as sacrebleu
>>> hyps = ["The dog bit the man.", "It wasn't surprising.", "The man had just bitten him."]
>>> refs = [["The dog bit the man.", "It was not unexpected.", "The man bit him first."],
...         ["The dog had bit the man.", "No one was surprised.", "The man had bitten the dog."]]
>>> bleu = sacrebleu.compat.corpus_bleu(hyps, refs)
>>> round(bleu.score, 2), bleu.counts, bleu.sys_len, bleu.ref_len
(48.53, [14, 7, 5, 3], 17, 18)
"""

from .metrics.bleu import corpus_bleu, corpus_bleu_files, sentence_bleu

__all__ = ["corpus_bleu", "corpus_bleu_files", "sentence_bleu"]
