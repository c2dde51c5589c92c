"""``evalcore.http`` and ``evalcore.cache`` name this distribution's modules; without it they say what to install."""

from __future__ import annotations

import json

import evalcore.cache
import evalcore.http
import evalcore_http.cache
import evalcore_http.client
from evalcore.testing import run_evalcore, run_without


def test_the_public_paths_are_this_distributions_objects():
    assert evalcore.http.OpenAIClient is evalcore_http.client.OpenAIClient
    assert evalcore.cache.ContentCache is evalcore_http.cache.ContentCache
    assert evalcore.http.OpenAIClient.__module__ == "evalcore_http.client"  # where it is defined and documented


def test_without_the_distribution_a_public_name_says_what_to_install():
    proc = run_without("evalcore_http", """
        import evalcore.http
        try:
            evalcore.http.OpenAIClient
        except ModuleNotFoundError as exc:
            print(exc)
    """)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == ("evalcore.http.OpenAIClient is part of evalcore-http, which is not installed: "
                                   "pip install evalcore-http")


def test_without_the_distribution_the_run_settings_still_work():
    proc = run_without("evalcore_http", """
        import json
        from evalcore.cache import CacheMode
        from evalcore.plugin import CACHE_MODES, RunContext
        context = RunContext.from_environment({"EVALCORE_CACHE_MODE": "readonly", "EVALCORE_CACHE_DIR": "/c"})
        print(json.dumps([list(CACHE_MODES), context.cache_mode, context.cache_dir]))
    """)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == [["readwrite", "readonly", "refresh", "off"], "readonly", "/c"]


def test_evalcore_plugins_shows_the_distribution():
    proc = run_evalcore("plugins", "--json")
    [plugin] = [p for p in json.loads(proc.stdout) if p["name"] == "http"]
    assert plugin["distribution"] == "evalcore-http" and plugin["status"] == "loaded" and plugin["metrics"] == []
