"""The suite as pytest items, for Python engine authors: ``pytest --doublecheck-adapter mod:Class``.

Installed with doublecheck (the ``pytest11`` entry point), this plugin does
nothing until ``--doublecheck-adapter`` (or the ``doublecheck_adapter`` ini
setting) names an adapter class. Then every selected case becomes one pytest
item, collected under one node per case file: the case ``chess/castling/x``
is the node ``chess/castling::x``, as a test function is ``file::name``. So
pytest's own tools apply as usual: ``-k castling``, ``-x``, ``--lf``,
``--co``, ``--junitxml`` (classname ``chess.castling``: the variant and the
case file), pytest-xdist's ``-n`` (each worker makes its own adapter), and a
node id (or a case id, or a case id glob) given as an argument selects those
cases. A failing case shows the same text as ``doublecheck run``: what was
asked, and the diff.

Nothing heavy is imported until the plugin is switched on, so that installing
doublecheck costs other test runs nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

def _option(text: str) -> tuple[str, str]:
    """NAME=VALUE, read as ``doublecheck run --option`` reads it."""
    from doublecheck.cli import option_assignment
    return option_assignment(text)


def _seconds(text: str) -> float:
    """A time limit, checked as ``doublecheck run --timeout`` checks it."""
    from doublecheck.cli import seconds
    return seconds(text)


def pytest_addoption(parser):
    group = parser.getgroup("doublecheck", "doublecheck conformance cases (doublecheck docs pytest)")
    group.addoption("--doublecheck-adapter", metavar="MODULE:CLASS",
                    help="run the doublecheck cases against this adapter class (turns the plugin on)")
    group.addoption("--doublecheck-variant", metavar="VARIANT",
                    help="only the cases of this variant")
    group.addoption("--doublecheck-rule", metavar="RULE",
                    help="only the cases citing this rule id")
    group.addoption("--doublecheck-cases-dir", metavar="DIR",
                    help="a case tree of your own instead of the packaged one")
    group.addoption("--doublecheck-max-nodes", metavar="N", type=int,
                    help="skip perft cases expecting more than N nodes")
    group.addoption("--doublecheck-quick", action="store_true",
                    help="the same as doublecheck run --quick: skip the largest perft cases")
    group.addoption("--doublecheck-timeout", metavar="SECONDS", type=_seconds,
                    help="base time limit per request, as doublecheck run --timeout (0: none)")
    group.addoption("--doublecheck-option", metavar="NAME=VALUE", type=_option, action="append",
                    default=[], help="judge the adapter under this rule option or capability, as "
                                     "doublecheck run --option (repeatable; doublecheck docs options)")
    parser.addini("doublecheck_adapter", "MODULE:CLASS of the adapter to check (as --doublecheck-adapter)")


def _settings(config) -> dict | None:
    """What the command line and ini asked for; None when the plugin is off."""
    adapter = config.getoption("doublecheck_adapter") or config.getini("doublecheck_adapter")
    if not adapter:
        return None
    from doublecheck.harness.runner import QUICK_MAX_NODES, TIMEOUT
    max_nodes = config.getoption("doublecheck_max_nodes")
    if config.getoption("doublecheck_quick") and max_nodes is None:
        max_nodes = QUICK_MAX_NODES
    timeout = config.getoption("doublecheck_timeout")
    return {"adapter": adapter, "variant": config.getoption("doublecheck_variant"),
            "rule": config.getoption("doublecheck_rule"),
            "cases_dir": config.getoption("doublecheck_cases_dir"), "max_nodes": max_nodes,
            "timeout": TIMEOUT if timeout is None else (timeout or None),
            "options": config.getoption("doublecheck_option"), "patterns": []}


def node_id(case) -> str:
    """The pytest node id of a case: its case file's node, then ``::`` and its name."""
    return f"{case.variant}/{case.topic}::{case.id.rsplit('/', 1)[1]}"


def case_pattern(arg: str) -> str:
    """A node id (``chess/castling::x``), a case file's node (``chess/castling``) or a case id
    glob, as a ``doublecheck run`` pattern (``chess/castling/x``)."""
    return arg.replace("::", "/")


def take_case_arguments(config, settings: dict) -> None:
    """Move the arguments that name cases rather than paths out of pytest's way.

    pytest takes every argument for a file or folder and stops at one that does
    not exist; a node id printed for a failing case should select that case when
    pasted back. An argument is a case's when no such path exists here and its
    first part is a variant folder of the case tree; the others stay pytest's.
    """
    from doublecheck.casefiles import CASES_DIR
    cases_dir = Path(settings["cases_dir"] or CASES_DIR)
    here = config.invocation_params.dir
    theirs = []
    for arg in config.args:
        path = arg.split("::", 1)[0]
        first = path.replace("\\", "/").split("/", 1)[0]
        if first and not (here / path).exists() and (cases_dir / first).is_dir():
            settings["patterns"].append(case_pattern(arg))
        else:
            theirs.append(arg)
    if settings["patterns"]:
        # Only cases named: collect none of the project's own tests (an empty list
        # collects nothing; pytest's default would have been this folder).
        config.args[:] = theirs


class Checker:
    """One adapter engine per process, made on first use, with its hello claims."""

    def __init__(self, settings: dict):
        self.settings = settings
        self.engine = None
        self.claims = None
        self.declared = None   # the options judged under (the hello's, then --doublecheck-option)

    def start(self):
        from doublecheck.harness.declared import Declared, from_command_line
        from doublecheck.harness.engines import engine_spec
        if self.engine is None:
            engine = engine_spec(adapter=self.settings["adapter"], timeout=None).make()
            self.claims = engine.hello()
            self.declared = Declared.of(self.claims.get("options"),
                                        from_command_line(self.settings["options"]),
                                        self.settings["cases_dir"])
            self.engine = engine
        return self.engine, self.claims

    def check(self, case):
        from doublecheck.harness.runner import run_case
        engine, claims = self.start()
        return run_case(case, engine, claims, self.settings["max_nodes"],
                        timeout=self.settings["timeout"], declared=self.declared)

    def close(self):
        if self.engine is not None:
            self.engine.close()


CHECKER = pytest.StashKey[Checker]()


def pytest_configure(config):
    config.addinivalue_line("markers", "doublecheck: a doublecheck conformance case")
    settings = _settings(config)
    if settings is not None:
        take_case_arguments(config, settings)
        config.stash[CHECKER] = Checker(settings)


def pytest_unconfigure(config):
    checker = config.stash.get(CHECKER, None)
    if checker is not None:
        checker.close()


def _selected_cases(settings: dict) -> list:
    """The cases a ``doublecheck run`` with the same selection would run, in the same order."""
    from doublecheck.casefiles import CASES_DIR, DataError, check_cases_dir, load_cases, select_tier
    from doublecheck.harness.runner import select_cases
    try:
        cases_dir = check_cases_dir(settings["cases_dir"] or CASES_DIR)
        cases, problems = load_cases(cases_dir, warn=lambda message: None, deep=True)
    except DataError as e:
        raise pytest.UsageError(f"doublecheck: {e}") from None
    if problems:
        shown = "\n  ".join(problems[:20])
        raise pytest.UsageError(f"doublecheck: the case tree {cases_dir} has problems:\n  {shown}")
    found = select_cases(cases, settings["variant"], settings["rule"], settings["patterns"])
    unmatched = [p for p in settings["patterns"] if not select_cases(found, patterns=[p])]
    if unmatched:
        narrowed = " with the --doublecheck-variant/--doublecheck-rule given" if (
            settings["variant"] or settings["rule"]) else ""
        raise pytest.UsageError(f"doublecheck: no case matches {', '.join(unmatched)}{narrowed} "
                                f"(doublecheck run --list prints the case ids)")
    return select_tier(found, False, settings["max_nodes"])


def case_files(session, cases) -> list:
    """One collector node per case file, holding the file's selected cases in their order."""
    by_file: dict[str, list] = {}
    for case in cases:
        by_file.setdefault(f"{case.variant}/{case.topic}", []).append(case)
    return [CaseFile.from_parent(session, name=name, nodeid=name, cases=found)
            for name, found in by_file.items()]


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session, config, items):
    """Collect the selected cases' files and add their items (before -k, --lf and the rest
    filter the items). Collecting through ``session.genitems`` reports each file as
    collected, so ``--co`` and the "collected N items" line count the cases."""
    checker = config.stash.get(CHECKER, None)
    if checker is None:
        return
    from doublecheck.harness.engines import HelloError
    from doublecheck.oracle.errors import RulesError
    try:
        checker.start()
    except HelloError as e:
        raise pytest.UsageError(f"doublecheck: {e}") from None
    except RulesError as e:   # an unknown option or value, declared either way
        raise pytest.UsageError(f"doublecheck: {e.code}: {e.message}") from None
    for node in case_files(session, _selected_cases(checker.settings)):
        items.extend(session.genitems(node))


class CaseFailed(Exception):
    """A case that failed or errored; ``result`` is the runner's Result."""

    def __init__(self, result):
        super().__init__(result.outcome)
        self.result = result


class CaseFile(pytest.Collector):
    """The selected cases of one case file (``chess/castling``): a collector, as a test module
    is, so that its name becomes the JUnit classname (``chess.castling``)."""

    def __init__(self, *, cases, **kwargs):
        super().__init__(**kwargs)
        self.cases = cases

    def collect(self):
        return [CaseItem.from_parent(self, name=case.id.rsplit("/", 1)[1], nodeid=node_id(case),
                                     case=case) for case in self.cases]

    def reportinfo(self):
        return self.cases[0].path, None, self.name


class CaseItem(pytest.Item):
    """One conformance case, run through ``doublecheck.harness.runner.run_case``."""

    def __init__(self, *, case, **kwargs):
        super().__init__(**kwargs)
        self.case = case
        self.add_marker(pytest.mark.doublecheck)
        self.extra_keyword_matches.update({case.id, case.variant, case.topic, *case.rules})

    def runtest(self):
        result = self.config.stash[CHECKER].check(self.case)
        if result.outcome == "skipped":
            pytest.skip(result.lines[0] if result.lines else "skipped")
        if result.outcome != "passed":
            raise CaseFailed(result)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, CaseFailed):
            from doublecheck.harness.report import describe, headline
            result = excinfo.value.result
            return f"{headline(result)}\n{describe(result)}"
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        return self.case.path, None, self.case.id


def pytest_report_header(config):
    checker = config.stash.get(CHECKER, None)
    if checker is not None:
        options = " ".join(f"--doublecheck-option {k}={v}" for k, v in checker.settings["options"])
        return f"doublecheck: cases against adapter {checker.settings['adapter']}" + \
            (f", judged under {options} (and what its hello declares)" if options else "")
    return None


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """Say under which declared options the cases were judged (hello and --doublecheck-option)."""
    checker = config.stash.get(CHECKER, None)
    if checker is not None and checker.declared:
        terminalreporter.write_line(f"doublecheck: judged under {checker.declared.summary()}")
