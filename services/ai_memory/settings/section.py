"""The base of a section of the settings: a plain model holding fields and their
validators. Only ``Settings`` (``model``) composes the sections and reads variables,
under its one configuration."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Section(BaseModel):
    # As pydantic-settings' own base does: ``model_dir`` is a setting, and pydantic
    # before 2.10 warned on every field named ``model_*``.
    model_config = ConfigDict(protected_namespaces=("model_validate", "model_dump"))
