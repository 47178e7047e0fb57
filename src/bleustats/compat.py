"""sacreBLEU's ``compat`` functions, so ``import bleustats as sacrebleu`` keeps working.

``corpus_bleu``, ``raw_corpus_bleu``, ``sentence_bleu``, ``corpus_chrf``,
``sentence_chrf``, ``corpus_ter`` and ``sentence_ter`` with sacreBLEU 2.6's
arguments and results. The code lives in :mod:`bleustats.metrics.bleu_functions`,
:mod:`~bleustats.metrics.chrf` and :mod:`~bleustats.metrics.ter`; this module
only gives it the path sacreBLEU code imports it from
(``sacrebleu.compat.corpus_bleu``).

Examples
--------
>>> import bleustats as sacrebleu
>>> hyps = ["The dog bit the man.", "It wasn't surprising.", "The man had just bitten him."]
>>> refs = [["The dog bit the man.", "It was not unexpected.", "The man bit him first."],
...         ["The dog had bit the man.", "No one was surprised.", "The man had bitten the dog."]]
>>> bleu = sacrebleu.compat.corpus_bleu(hyps, refs)
>>> round(bleu.score, 2), bleu.counts, bleu.sys_len, bleu.ref_len
(48.53, [14, 7, 5, 3], 17, 18)
>>> print(sacrebleu.corpus_chrf(hyps, refs), sacrebleu.corpus_ter(hyps, refs), sep=" | ")
chrF2 = 59.73 | TER = 40.00
"""

from .metrics.bleu import BLEU
from .metrics.bleu_functions import corpus_bleu, corpus_bleu_files, raw_corpus_bleu, sentence_bleu
from .metrics.chrf import CHRF, corpus_chrf, sentence_chrf
from .metrics.ter import TER, corpus_ter, sentence_ter

__all__ = ["BLEU", "CHRF", "TER", "corpus_bleu", "corpus_bleu_files", "corpus_chrf", "corpus_ter",
           "raw_corpus_bleu", "sentence_bleu", "sentence_chrf", "sentence_ter"]
