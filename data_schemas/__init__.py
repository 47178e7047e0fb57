"""Arrow schemas of every bleustats table, one JSON file per table.

The top-level ``data_schemas/`` folder of the repository is the single source of
truth; it ships inside the package as ``bleustats.data_schemas`` and
:mod:`bleustats.schemas` reads it at run time.
"""
