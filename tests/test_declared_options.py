"""Declared options end to end: an engine with house rules, judged with and without them.

The engine is tests/toy_engines/house_rules.py: the oracle playing under rule options
given on its command line (so every answer it gives is right under those options and
wrong under the defaults exactly where the option matters), refusing SAN for ``san=no``
and accepting invalid FENs for ``fen-validation=lenient``; it declares all of it in its
hello only with ``--declare``.  The cases are the installed ones, a few files each.
"""

import json
import re
import shlex
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from doublecheck.casefiles import load_cases, schema
from doublecheck.cli import main
from doublecheck.harness.declared import Declared, needs_san
from doublecheck.oracle import options

ROOT = Path(__file__).resolve().parent.parent
HOUSE = ROOT / "tests" / "toy_engines" / "house_rules.py"
DRAWS = ["chess/fifty-moves", "chess/options"]     # what draws=automatic decides, and its own cases


def house(*chosen, declare=False) -> str:
    argv = [sys.executable, str(HOUSE), *chosen] + (["--declare"] if declare else [])
    return " ".join(shlex.quote(a) for a in argv)


def run(capsys, *argv):
    code = main(["run", "--jobs", "1", "--quiet", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def verdict(out: str) -> str:
    return out.strip().splitlines()[-1]


# --- an engine playing with X=v --------------------------------------------------

def test_house_rules_fail_the_default_run(capsys):
    code, out, _ = run(capsys, *DRAWS, "--engine", house("draws=automatic"))
    assert code == 1
    assert "FAILED chess/fifty-moves/clock-150-automatic" in out
    assert "Judged under" not in out            # nothing declared: the report is as it was


@pytest.mark.parametrize("how", ["option", "hello"])
def test_declaring_them_passes(capsys, how):
    if how == "option":
        code, out, _ = run(capsys, *DRAWS, "--engine", house("draws=automatic"),
                           "--option", "draws=automatic")
    else:
        code, out, _ = run(capsys, *DRAWS, "--engine", house("draws=automatic", declare=True))
    assert code == 0, out
    source = "--option" if how == "option" else "hello"
    assert out.splitlines()[1] == f"Judged under: draws=automatic ({source})"
    assert "0 failed" in verdict(out)


def test_option_overrides_hello(capsys):
    """--option wins over the hello: declaring the default back judges by the default rules."""
    code, out, _ = run(capsys, *DRAWS, "--engine", house("draws=automatic", declare=True),
                       "--option", "draws=claims")
    assert code == 1
    assert out.splitlines()[1] == "Judged under: draws=claims (--option)"


def test_in_process_adapter_too(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    adapter = "tests.toy_engines.house_rules:DrawsAutomatic"
    assert run(capsys, *DRAWS, "--adapter", adapter)[0] == 1
    code, out, _ = run(capsys, *DRAWS, "--adapter", adapter, "--option", "draws=automatic")
    assert code == 0, out


def test_the_oracle_plays_under_run_options(capsys):
    """With neither --engine nor --adapter the oracle plays under --option (and as served
    processes with --jobs 2), so its answers under each value are judged like a default."""
    code, out, _ = run(capsys, "marseillais/options", "--option", "ep-after-move-one=none")
    assert code == 0, out
    assert "passed" in verdict(out) and not verdict(out).startswith("OK: 0 passed")
    assert main(["run", "--quiet", "--jobs", "2", "marseillais/options", "chess/options",
                 "--option", "draws=automatic"]) == 0


@pytest.mark.parametrize("name,value", [(o.name, v) for o in options.rule_options().values()
                                        for v in o.alternatives()])
def test_each_value_served_over_the_protocol(capsys, name, value):
    """``doublecheck serve --option`` plays each rule option value over the protocol: every
    curated case written for that value passes, and the others are skipped."""
    cases = [c for c in _option_cases() if c.options.get(name) == value]
    assert cases, f"no curated case for {name}={value}"
    served = f"{sys.executable} -m doublecheck serve --option {name}={value}"
    code, out, _ = run(capsys, *sorted({c.id for c in cases}), "--engine", served)
    assert code == 0, out
    assert f"{len(cases)} passed, 0 failed" in verdict(out)


# --- capabilities ----------------------------------------------------------------

@pytest.mark.parametrize("capability,cases,reason", [
    ("san=no", "chess/san", "the request writes its moves in SAN and the engine declares san=no"),
    ("fen-validation=lenient", "chess/invalid-fen",
     "the case expects an invalid FEN to be refused and the engine declares lenient FEN validation"),
])
def test_capability_skips(capsys, capability, cases, reason):
    engine = house(capability)
    code, out, _ = run(capsys, cases, "--engine", engine)
    assert code == 1                              # lacking it, the engine fails those cases
    code, out, _ = run(capsys, cases, "--engine", engine, "--option", capability)
    assert code == 0, out
    assert reason in out
    skipped = int(verdict(out).split(" skipped")[0].rsplit(" ", 1)[1])
    assert skipped > 0 and f"({skipped} of them because of the declared options)" in verdict(out)


def test_needs_san_reads_the_move_text():
    by_id = {c.id: c for c in _cases("chess/san")}
    assert any(needs_san(c) for c in by_id.values())
    coordinates = [c for c in _cases("chess/moves") if c.request.get("moves")]
    assert coordinates and not any(needs_san(c) for c in coordinates)


# --- refusing what is not known --------------------------------------------------

@pytest.mark.parametrize("argv,said", [
    (["run", "--option", "castling=never"], "unknown option 'castling' (known: draws, "),
    (["run", "--option", "draws=sometimes"], "unknown value 'sometimes' of option draws (known: claims, automatic, claims-only, none)"),
    (["serve", "--option", "draws=sometimes"], "unknown value 'sometimes'"),
])
def test_unknown_options_are_refused(capsys, argv, said):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: unknown-option: ") and said in err


def test_an_option_is_written_name_equals_value(capsys):
    assert main(["run", "--option", "draws"]) == 2
    assert "must be NAME=VALUE (for example draws=automatic)" in capsys.readouterr().err


def test_unknown_option_in_hello_is_refused(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    code, out, err = run(capsys, "chess/options", "--adapter", "tests.toy_engines.house_rules:DeclaresUnknown")
    assert code == 2
    assert "error: unknown-option: the engine's hello declares unknown option 'castling'" in err


# --- reports ---------------------------------------------------------------------

def test_every_report_starts_with_the_options(capsys, tmp_path):
    files = {name: tmp_path / f"report.{name}" for name in ("json", "junit", "html")}
    argv = [*DRAWS, "chess/san", "--engine", house("draws=automatic", "san=no", declare=True),
            "--option", "draws=automatic"]
    for name, path in files.items():
        argv += [f"--{name}", str(path)]
    code, text, _ = run(capsys, *argv)
    assert code == 0, text
    line = "Judged under: draws=automatic (--option), san=no (capability, hello)"
    assert text.splitlines()[1] == line
    code, markdown, _ = run(capsys, *argv[:-6], "--format", "markdown")
    assert markdown.splitlines()[2] == line
    report = json.loads(files["json"].read_text())
    Draft202012Validator(schema("report.schema.json")).validate(report)
    assert report["options"] == [
        {"name": "draws", "value": "automatic", "kind": "rule", "from": "--option", "default": False},
        {"name": "san", "value": "no", "kind": "capability", "from": "hello", "default": False}]
    # the cases written for other draws values are skipped because of the declared value; those
    # written for another option's value (move-count=none, ...) are skipped, but not because of it
    assert report["totals"]["skipped"] > report["skipped_by_options"] > 0
    root = ET.parse(files["junit"]).getroot()
    assert root[0].tag == "properties"
    props = {p.get("name"): p.get("value") for p in root[0]}
    assert props["option:draws"] == "automatic (rule, from --option)"
    assert props["skipped-by-options"] == str(report["skipped_by_options"])
    assert f"{line}; {report['skipped_by_options']} cases skipped because of them" in \
        files["html"].read_text()
    from doublecheck.harness.html_report import html_report   # a page made from the JSON report
    assert f"{line}; {report['skipped_by_options']} cases skipped" in html_report(report)


def test_a_default_run_reports_as_before(capsys, tmp_path):
    out_json = tmp_path / "r.json"
    code, out, _ = run(capsys, "chess/fifty-moves", "--json", str(out_json))
    assert code == 0
    assert "Judged under" not in out and "because of the declared options" not in out
    assert "options" not in json.loads(out_json.read_text())
    assert verdict(out) == "OK: 11 passed, 0 failed, 0 errors, 0 skipped"


# --- judging one case ------------------------------------------------------------

def test_a_case_written_for_another_value_is_skipped_naming_it():
    case = next(c for c in _option_cases() if c.options.get("ep-after-move-one") == "none")
    assert Declared().plan(case).skip == "written for ep-after-move-one=none; the engine plays target"
    under = Declared.of({"ep-after-move-one": "none"})
    assert under.plan(case).skip is None


def test_a_changed_answer_comes_from_the_oracle_under_the_options():
    """A default case whose answer draws=automatic changes is judged by the oracle's answer
    under it, and says so when it fails."""
    case = next(c for c in _cases("chess/fifty-moves") if c.id.endswith("clock-100-claimable"))
    plan = Declared.of({}, {"draws": "automatic"}).plan(case)
    assert plan.skip is None and plan.note.startswith("expected answer from the oracle under draws=automatic")
    assert plan.case.expect["status"]["reason"] == "fifty-moves"
    assert case.expect["status"]["reason"] is None   # the case itself is left as written


# --- the installed cases ---------------------------------------------------------

def _cases(prefix: str) -> list:
    variant = prefix.split("/")[0]
    found, _ = load_cases(wanted=lambda v, raw: v == variant and raw["id"].startswith(prefix + "/"))
    return found


def _option_cases() -> list:
    found, _ = load_cases(wanted=lambda v, raw: bool(raw.get("options")))
    return found


def test_the_options_page_names_every_option_and_value():
    page = (ROOT / "docs" / "options.md").read_text()
    for option in options.OPTIONS.values():
        row = next((line for line in page.splitlines() if line.startswith(f"| `{option.name}` |")), None)
        assert row, f"docs/options.md has no row for {option.name}"
        assert f"| `{option.default}` |" in row
        for value in option.alternatives():
            assert f"`{value}`" in row


def test_the_pytest_plugin_takes_options(tmp_path):
    """``--doublecheck-option`` judges an adapter as ``run --option`` does."""
    import shutil
    import subprocess
    shutil.copy(HOUSE, tmp_path / "house_rules.py")

    def pytest_in(*args):
        return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
                               "--doublecheck-adapter", "house_rules:DrawsAutomatic",
                               "--doublecheck-variant", "chess", "-k", "fifty-moves", *args],
                              cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert pytest_in().returncode == 1
    proc = pytest_in("--doublecheck-option", "draws=automatic")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "doublecheck: judged under draws=automatic (--option)" in proc.stdout
    proc = pytest_in("--doublecheck-option", "draws=sometimes")
    assert proc.returncode == 4 and "unknown-option: unknown value 'sometimes'" in proc.stderr


# --- serve, rules --options, the desk -------------------------------------------

def _served(argv_options, adapter=None, lines=('{"id": 1, "op": "hello"}',)):
    import io
    from doublecheck.harness import serve
    from doublecheck.harness.engines import OracleAdapter
    engine = serve.Announcing(adapter, argv_options) if adapter else OracleAdapter(argv_options)
    out = io.BytesIO()
    serve.serve(engine, stdin=io.BytesIO("\n".join(lines).encode() + b"\n"), stdout=out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_serve_announces_its_options_and_plays_under_them():
    repeat = ["g1f3", "g8f6", "f3g1", "f6g8"] * 2
    hello, status = _served({"draws": "automatic", "san": "no"}, lines=(
        '{"id": 1, "op": "hello"}',
        json.dumps({"id": 2, "op": "status", "variant": "chess", "moves": repeat})))
    assert hello["options"] == {"draws": "automatic", "san": "no"}
    assert status["status"]["reason"] == "threefold-repetition"
    assert "options" not in _served({})[0]           # nothing declared: the hello as before


def test_serve_declares_options_for_an_adapter():
    from doublecheck.harness.engines import OracleAdapter
    hello, = _served({"fen-validation": "lenient"}, adapter=OracleAdapter())
    assert hello["options"] == {"fen-validation": "lenient"}


@pytest.mark.parametrize("options,said", [
    (["draws"], "'options' must be an object"), ({"draws": 1}, "'options' must be an object"),
    ({f"o{i}": "v" for i in range(65)}, "$.options: 65 entries; at most 64"),
])
def test_a_hello_with_unusable_options_is_refused(options, said):
    from doublecheck.harness.engines import HelloError, check_claims
    with pytest.raises(HelloError, match=re.escape(said)):
        check_claims({"name": "x", "variants": ["chess"], "ops": ["moves"], "options": options}, "x")


def test_rules_options_lists_every_option_with_the_variants_that_take_it(capsys):
    assert main(["rules", "--options", "--json"]) == 0
    listed = {o["name"]: o for o in json.loads(capsys.readouterr().out)["options"]}
    assert set(listed) == set(options.OPTIONS)
    from doublecheck.oracle import variants
    for name, option in listed.items():
        takes = [v for v in variants.registered()
                 if name in options.taken_by(variants.descriptor(v).rules_class())]
        assert option["variants"] == (list(variants.registered()) if option["kind"] == "capability"
                                       else takes)
        assert [v["value"] for v in option["values"]] == list(options.OPTIONS[name].values)
        assert all(v["sources"] for v in option["values"])
    assert main(["rules", "--options", "--variant", "chess"]) == 0
    text = capsys.readouterr().out
    assert "draws=automatic" in text and "ep-after-move-one" not in text


def test_the_desk_plays_under_options():
    from doublecheck.desk import ops
    from doublecheck.oracle.errors import RulesError
    repeat = {"variant": "chess", "moves": ["g1f3", "g8f6", "f3g1", "f6g8"] * 2}
    assert ops.answer("position", repeat)["status"]["reason"] is None
    under = ops.answer("position", {**repeat, "options": {"draws": "automatic"}})
    assert under["status"]["reason"] == "threefold-repetition"
    assert ops.answer("status", {**repeat, "options": {"draws": "automatic"}})["status"]["over"]
    assert {o["name"] for o in ops.hello()["desk"]["options"]} == set(options.rule_options())
    with pytest.raises(RulesError) as refused:
        ops.answer("position", {**repeat, "options": {"draws": "sometimes"}})
    assert refused.value.code == "unknown-option"


def test_the_record_says_which_cases_are_asked_of_the_oracle(tmp_path):
    """With a record, a listed case gets the oracle's answer under the option, a case the
    record could not recompute is skipped with its reason, and an unlisted one is judged
    as written (the record, not a guess, decides)."""
    import shutil
    (tmp_path / "chess").mkdir()
    shutil.copy(ROOT / "cases" / "chess" / "fifty-moves.json", tmp_path / "chess")
    found, problems = load_cases(tmp_path)
    assert not problems
    by_slug = {c.id.rsplit("/", 1)[1]: c for c in found}
    listed, costly, unlisted = (by_slug[s] for s in ("clock-100-claimable", "clock-100-in-fen",
                                                      "clock-150-automatic"))
    (tmp_path / "options").mkdir()
    (tmp_path / "options" / "chess.json").write_text(json.dumps({
        "generated": True, "variant": "chess", "description": "a test record",
        "fingerprint": "0" * 32, "changes": {"draws=automatic": {
            "changed": [listed.id], "not_recomputed": {costly.id: "too many nodes to count again"}}}}))
    declared = Declared.of({}, {"draws": "automatic"}, tmp_path)
    plan = declared.plan(listed)
    assert plan.note and plan.case.expect != listed.expect
    assert declared.plan(costly).skip == ("its answer under draws=automatic is not recorded: "
                                          "too many nodes to count again")
    assert declared.plan(unlisted).case is unlisted and declared.plan(unlisted).note is None


def test_the_desk_starts_under_its_option_over_http():
    """``doublecheck desk --option``: the hello names the options the page starts under; a
    request says its own ``options`` (none: the defaults), and an unknown one is refused."""
    sys.path.insert(0, str(ROOT / "tests"))
    from desk_support import fetch, running_desk
    repeat = {"variant": "chess", "moves": ["g1f3", "g8f6", "f3g1", "f6g8"] * 2}
    with running_desk(options={"draws": "automatic"}) as base:
        status, _, hello = fetch(base + "/api/hello")
        assert status == 200 and hello["desk"]["start_options"] == {"draws": "automatic"}
        _, _, plain = fetch(base + "/api/status", repeat)
        _, _, under = fetch(base + "/api/status", {**repeat, "options": {"draws": "automatic"}})
        assert plain["status"]["over"] is False and under["status"]["reason"] == "threefold-repetition"
        status, _, refused = fetch(base + "/api/status", {**repeat, "options": {"draws": "x"}})
        assert status == 400 and refused["error"]["code"] == "unknown-option"
