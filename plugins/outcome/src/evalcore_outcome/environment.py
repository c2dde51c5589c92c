"""The environment a command gets (an allow-list) and redaction of secrets from its output."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

import attrs

#: Variables a command always gets from the parent environment (when they are set).
BASE_VARIABLES = ("PATH", "HOME", "LANG", "TMPDIR")

# Names of variables whose values are secrets: API_KEY, GITHUB_TOKEN, DB_PASSWORD, ...
_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|PRIVATE|COOKIE",
                          re.IGNORECASE)
# Shorter values are not redacted: replacing "1" or "yes" everywhere would garble the output.
_MIN_SECRET_CHARS = 4


def command_environment(
    explicit: Mapping[str, str] | None, passed: Iterable[str], parent: Mapping[str, str],
) -> dict[str, str]:
    """:data:`BASE_VARIABLES` and the ``passed`` names taken from ``parent`` (the environment the
    run started with), then the ``explicit`` values; nothing else."""
    names = (*BASE_VARIABLES, *passed)
    env = {name: parent[name] for name in names if name in parent}
    env.update(explicit or {})
    return env


def looks_secret(name: str) -> bool:
    """Whether a variable's name says its value is a secret (KEY, TOKEN, SECRET, PASSWORD ...)."""
    return _SECRET_NAME.search(name) is not None


@attrs.frozen
class Redactor:
    """Replaces the values of secret-looking variables with ``[redacted NAME]``."""

    secrets: tuple[tuple[str, str], ...]

    @classmethod
    def from_environments(cls, *environments: Mapping[str, str]) -> Redactor:
        """Secrets of every given environment, longest value first (so none is cut in two)."""
        found = {value: name for env in environments for name, value in env.items()
                 if looks_secret(name) and len(value) >= _MIN_SECRET_CHARS}
        ordered = sorted(found.items(), key=lambda item: -len(item[0]))
        return cls(tuple((name, value) for value, name in ordered))

    def __call__(self, text: str) -> str:
        for name, value in self.secrets:
            if value in text:
                text = text.replace(value, f"[redacted {name}]")
        return text
