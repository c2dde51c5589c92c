"""Whether a tracker's destination answers: what a tracker (MLflow, W&B) checks as it is made, so a
server that is down or silent costs seconds before scoring, not minutes after it."""

from __future__ import annotations

import urllib.error
import urllib.request

from evalcore.plugin import TrackingError


def check_answers(url: str, what: str, *, timeout_s: float = 5.0, hint: str = "") -> None:
    """Raise a one-line :class:`~evalcore.TrackingError` unless the server at ``url`` (``http://`` or
    ``https://``) answers a GET within ``timeout_s`` seconds; any HTTP answer will do, an error
    status included. ``what`` names the server in the message (``"MLflow at http://..."``), ``hint``
    follows it (``"(is the tracking server running?)"``). What a tracker calls as it is made, so a
    destination that is down or silent costs seconds before scoring, not minutes after it."""
    suffix = f" {hint}" if hint else ""
    try:
        with urllib.request.urlopen(urllib.request.Request(url, method="GET"), timeout=timeout_s):  # noqa: S310
            return
    except urllib.error.HTTPError:
        return  # an answer
    except TimeoutError:
        raise TrackingError(f"{what}: no answer within {timeout_s:g} s{suffix}") from None
    except urllib.error.URLError as exc:
        if isinstance(exc.reason, TimeoutError):
            raise TrackingError(f"{what}: no answer within {timeout_s:g} s{suffix}") from None
        raise TrackingError(f"{what}: cannot connect{suffix}: {' '.join(str(exc.reason).split())}") from None
    except (OSError, ValueError) as exc:
        raise TrackingError(f"{what}: cannot connect{suffix}: {' '.join(str(exc).split())}") from None
