"""Settings from the environment (``AIMEM_*``), with embedded defaults: the one reader of it.

One typed object (pydantic-settings): ``Settings(...)`` takes exactly the values it is
given (tests, ``migrate``), ``Settings.from_env()`` reads the environment, and a bad value
fails naming its variable (``AIMEM_WAIT_TIMEOUT: Input should be a valid number``).
``Settings.one_from_env(field)`` reads a single variable, for code that needs one value
without a whole configuration (a client command's API key, the model and schema folders),
so that an unrelated bad variable does not stop it.

Each field's ``description`` is its documentation: ``docs/CONFIGURATION.md`` is generated
from them (``python -m ai_memory.settings_doc``). The fields are declared by section, one
module each (``storage``, ``governance``, ``api_keys``, ``http_edge``, ``peers``,
``data_protection``, ``webhooks``, ``command_line``, each a plain ``section.Section``),
and composed into ``Settings`` in ``model``. Only ``environment`` reads the process
environment itself (``tests/architecture/test_environment_reads.py``); pydantic-settings
reads the ``AIMEM_*`` variables for ``Settings.from_env``.
"""

from __future__ import annotations

from .comma_list import CommaList
from .errors import SettingsError, describe
from .model import Settings, client_api_key
from .otel import OtelEnvironment
from .variables import VARIABLES, variable_names

__all__ = [
    "VARIABLES",
    "CommaList",
    "OtelEnvironment",
    "Settings",
    "SettingsError",
    "client_api_key",
    "describe",
    "variable_names",
]
