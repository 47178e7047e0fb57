"""The whole suite's settings: a quiet compile notice, and the doctests of bleustats.distributed only with Dask.

CI installs it (the ``test`` extra pulls ``dask[dataframe]`` and ``distributed``), so
there its doctests run; a checkout without Dask skips those modules instead of
failing to import them (tests/distributed skips itself with the reason).
"""

import importlib.util
import os

# The one-line "compiling kernels once" notice goes to stderr whenever a kernel compiles (a fresh cache);
# the suite checks stderr line by line, so its processes and their children keep quiet
# (tests/test_packaging.py checks the notice with this unset).
os.environ["BLEUSTATS_QUIET_COMPILE"] = "1"

collect_ignore_glob = []
if importlib.util.find_spec("distributed") is None or importlib.util.find_spec("dask") is None:
    collect_ignore_glob.append("src/bleustats/distributed/*")
