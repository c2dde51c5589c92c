"""Listing metrics imports no heavy library and no metric implementation."""

import json

HEAVY = ["numpy", "rouge_score", "sacrebleu", "torch", "httpx", "openai", "aiohttp", "litellm", "dspy",
         "transformers", "sentence_transformers",
         "jsonschema", "nltk", "bert_score", "scipy"]


def test_import_evalcore_loads_nothing_else(run_python):
    proc = run_python("import sys, evalcore; print([m for m in sys.modules if m.startswith('evalcore')])")
    assert proc.returncode == 0, proc.stderr
    assert eval(proc.stdout) == ["evalcore._lazy", "evalcore._version", "evalcore"]


def test_list_metrics_imports_no_heavy_module_and_no_implementation(run_python):
    code = (
        "import json, sys, evalcore\n"
        "infos = evalcore.list_metrics()\n"
        "plugins = evalcore.list_plugins()\n"
        "print(json.dumps({'modules': sorted(sys.modules), 'impl': [i.spec.implementation for i in infos],\n"
        "                  'plugins': [p.to_dict() for p in plugins]}))\n"
    )
    proc = run_python(code)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert len(data["impl"]) > 20, "the bundled plugins should be installed"
    assert all(p["status"] == "loaded" for p in data["plugins"]), data["plugins"]
    loaded = set(data["modules"])
    assert not [m for m in HEAVY if m in loaded]
    implementation_modules = {impl.partition(":")[0] for impl in data["impl"]}
    assert not implementation_modules & loaded


def test_the_command_line_imports_only_click_until_a_command_needs_more(run_python):
    code = ("import sys, evalcore._cli.main\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('evalcore', 'pydantic', 'pluggy', 'attr')))")
    proc = run_python(code)
    assert proc.returncode == 0, proc.stderr
    assert eval(proc.stdout) == ["evalcore", "evalcore._cli", "evalcore._cli.common", "evalcore._cli.main",
                                 "evalcore._contract", "evalcore._contract.display", "evalcore._contract.env",
                                 "evalcore._contract.errors", "evalcore._lazy", "evalcore._version"]


def test_a_registration_module_that_takes_only_specs_loads_no_metric_machinery(run_python):
    code = ("import sys\nfrom evalcore.plugin import MetricSpec, ParamSpec, hookimpl\n"
            "print(sorted(m for m in sys.modules if m.startswith('evalcore')))")
    proc = run_python(code)
    assert proc.returncode == 0, proc.stderr
    assert eval(proc.stdout) == ["evalcore", "evalcore._contract", "evalcore._contract.errors",
                                 "evalcore._contract.hooks", "evalcore._contract.spec",
                                 "evalcore._contract.spec_fields", "evalcore._contract.vocabulary",
                                 "evalcore._lazy", "evalcore._version", "evalcore.plugin"]
