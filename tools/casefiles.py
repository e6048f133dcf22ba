"""Where the case tree and the schemas are, how to load them, and what is wrong with them.

Both travel inside the installed package as data: ``CASES_DIR`` is the
``doublecheck.cases`` folder and ``SCHEMAS_DIR`` the ``doublecheck.schemas``
folder, found through ``importlib.resources`` (a wheel, an sdist or an
editable install all look the same from here).  ``--cases-dir`` points the
commands at another case tree; the schemas always come from the package.

Layout (see ``schemas/``):

- ``cases/rules/<group>.json``: rule catalogue files, merged into one mapping
  from rule id to rule; an id may be defined only once across all groups.
- ``cases/<variant>/<topic>.json``: case files.

Nothing here raises on a bad file. Every defect becomes a readable problem
string that names the file, and the case id or the JSON path where there is
one: unreadable or malformed JSON, duplicate keys, schema violations, a topic
that differs from the file name, a variant that differs from the directory,
a case id that does not start with ``<variant>/<topic>/``, duplicate case or
rule ids, and cited rule ids the catalogue does not define. A file with
schema errors contributes no cases (or rules), so callers only ever see
well-formed data.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from fnmatch import fnmatchcase
from functools import lru_cache
from importlib import resources
from pathlib import Path

from jsonschema import Draft202012Validator

CASES_NOT_FOUND = "cases-not-found"        # the case tree is missing or holds nothing usable
SCHEMA_UNUSABLE = "schema-unusable"        # a schema file is missing, unreadable or not a schema


class DataError(Exception):
    """The case tree or a schema cannot be used at all (a damaged install, a wrong --cases-dir)."""

    def __init__(self, code: str, message: str):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


def _package_folder(package: str) -> Path:
    """The folder of a data package of doublecheck (installs are never zipped)."""
    return Path(str(resources.files(package)))


CASES_DIR = _package_folder("doublecheck.cases")
SCHEMAS_DIR = _package_folder("doublecheck.schemas")
RULES_GROUP_DIR = "rules"


def check_cases_dir(cases_dir) -> Path:
    """``cases_dir`` as a Path, or DataError(cases-not-found) naming it when it is no case tree."""
    path = Path(cases_dir)
    if not path.is_dir():
        what = "does not exist" if not path.exists() else "is not a directory"
        hint = " (the installed package is damaged: reinstall doublecheck)" \
            if path == CASES_DIR else ""
        raise DataError(CASES_NOT_FOUND, f"the case tree {path} {what}{hint}")
    if not any(path.glob("*/*.json")):
        raise DataError(CASES_NOT_FOUND, f"the case tree {path} holds no case files "
                                         f"(expected <variant>/<topic>.json below it)")
    return path


@lru_cache(maxsize=None)
def schema(name: str) -> dict:
    """The JSON Schema ``name`` from the package; DataError(schema-unusable) naming the file if not."""
    path = SCHEMAS_DIR / name
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        Draft202012Validator.check_schema(data)
    except FileNotFoundError:
        raise DataError(SCHEMA_UNUSABLE, f"the schema {path} is missing "
                                         f"(the installed package is damaged: reinstall doublecheck)") from None
    except Exception as e:
        raise DataError(SCHEMA_UNUSABLE, f"the schema {path} cannot be used: "
                                         f"{type(e).__name__}: {_clip(str(e))}") from None
    return data


@dataclass
class Case:
    """One conformance case; ``request`` already carries the file's variant."""

    id: str
    variant: str
    topic: str
    rules: list[str]
    description: str
    source: str
    request: dict
    expect: dict
    path: Path
    generated: bool
    tier: str = "default"   # "deep": left out of a default run (select_tier)

    @property
    def nodes(self) -> int | None:
        """The perft count the case expects (None for other operations)."""
        if "nodes" in self.expect:
            return self.expect["nodes"]
        if "divide" in self.expect:
            return sum(self.expect["divide"].values())
        return None


def load_rules(cases_dir=CASES_DIR) -> tuple[dict[str, dict], list[str]]:
    """All catalogue rules by id, and the problems found while loading them."""
    cases_dir = Path(cases_dir)
    problems: list[str] = []
    rules: dict[str, dict] = {}
    defined_in: dict[str, Path] = {}
    validator = _validator("rules.schema.json", problems)
    files = sorted((cases_dir / RULES_GROUP_DIR).glob("*.json"))
    if not files:
        problems.append(f"{_show(cases_dir / RULES_GROUP_DIR, cases_dir)}: no rule catalogue files")
    for path in files:
        where = _show(path, cases_dir)
        ok, data = _read_json(path, where, problems)
        if not ok or not _valid(validator, data, where, problems):
            continue
        for rule in data["rules"]:
            rid = rule["id"]
            if rid in rules:
                problems.append(f"{where}: rule {rid} is already defined in "
                                f"{_show(defined_in[rid], cases_dir)}")
                continue
            rules[rid] = rule
            defined_in[rid] = path
    return rules, problems


def load_cases(cases_dir=CASES_DIR, deep: bool = False) -> tuple[list[Case], list[str]]:
    """All cases below ``cases_dir`` and every problem found (catalogue included).

    The cases of deep-tier files (``"tier": "deep"``) are returned only with
    ``deep``; their files are read and checked either way.
    """
    cases_dir = Path(cases_dir)
    rules, problems = load_rules(cases_dir)
    validator = _validator("case-file.schema.json", problems)
    cases: list[Case] = []
    first_seen: dict[str, Path] = {}
    for path in sorted(cases_dir.glob("*.json")):
        problems.append(f"{_show(path, cases_dir)}: case files belong in a variant directory")
    for path in sorted(cases_dir.glob("*/*.json")):
        if path.parent.name == RULES_GROUP_DIR:
            continue
        where = _show(path, cases_dir)
        ok, data = _read_json(path, where, problems)
        if not ok or not _valid(validator, data, where, problems):
            continue
        variant, topic = data["variant"], data["topic"]
        if variant != path.parent.name:
            problems.append(f"{where}: variant '{variant}' does not match the directory "
                            f"'{path.parent.name}'")
        if topic != path.stem:
            problems.append(f"{where}: topic '{topic}' does not match the file name '{path.stem}'")
        for raw in data["cases"]:
            cid = raw["id"]
            here = f"{where}: case {cid}"
            if not cid.startswith(f"{variant}/{topic}/"):
                problems.append(f"{here}: id should start with '{variant}/{topic}/'")
            if cid in first_seen:
                problems.append(f"{here}: duplicate id, first used in "
                                f"{_show(first_seen[cid], cases_dir)}")
                continue
            first_seen[cid] = path
            for rid in raw["rules"]:
                if rid not in rules:
                    problems.append(f"{here}: unknown rule id '{rid}'")
            tier = data.get("tier", "default")
            if tier == "deep" and not deep:
                continue
            cases.append(Case(
                id=cid, variant=variant, topic=topic, rules=list(raw["rules"]),
                description=raw["description"], source=raw["source"],
                request={**raw["request"], "variant": variant}, expect=raw["expect"],
                path=path, generated=data["generated"], tier=tier))
    return cases, problems


def select(cases, variant=None, rule=None, pattern=None) -> list[Case]:
    """The cases of ``variant`` that cite ``rule`` and whose id matches the glob ``pattern``.

    Each criterion left as None matches everything.
    """
    return [c for c in cases
            if (variant is None or c.variant == variant)
            and (rule is None or rule in c.rules)
            and (pattern is None or fnmatchcase(c.id, pattern))]


def select_tier(cases, deep: bool = False, max_nodes: int | None = None) -> list[Case]:
    """The cases a run takes by tier: all with ``deep``; otherwise the default
    tier, plus the deep cases expecting at most ``max_nodes`` nodes when a
    limit is given (raising --max-nodes far enough lets them in)."""
    return [c for c in cases if deep or c.tier != "deep"
            or (max_nodes is not None and c.nodes is not None and c.nodes <= max_nodes)]


def _show(path: Path, cases_dir: Path) -> str:
    """The path as the user knows it: relative to the directory holding the case tree."""
    try:
        return str(path.relative_to(cases_dir.parent))
    except ValueError:
        return str(path)


def _no_duplicate_keys(pairs):
    seen = {}
    for key, value in pairs:
        if key in seen:
            raise ValueError(f"duplicate key '{key}'")
        seen[key] = value
    return seen


def _read_json(path: Path, where: str, problems: list[str]) -> tuple[bool, object]:
    """(True, data) for a readable JSON file; (False, None) after recording the problem."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        problems.append(f"{where}: cannot read: {e}")
        return False, None
    try:
        return True, json.loads(text, object_pairs_hook=_no_duplicate_keys)
    except json.JSONDecodeError as e:
        problems.append(f"{where}: malformed JSON at line {e.lineno}, column {e.colno}: {e.msg}")
    except ValueError as e:
        problems.append(f"{where}: malformed JSON: {e}")
    return False, None


@lru_cache(maxsize=None)
def _schema_validator(name: str):
    """(validator, None), or (None, reason) when the schema file is unusable."""
    try:
        return Draft202012Validator(schema(name)), None
    except DataError as e:  # a broken schema must not hide the case problems
        return None, e.message


def _validator(name: str, problems: list[str]):
    validator, trouble = _schema_validator(name)
    if trouble:
        problems.append(trouble)
    return validator


def _valid(validator, data, where: str, problems: list[str]) -> bool:
    if validator is None:
        return False
    errors = sorted(validator.iter_errors(data), key=lambda e: [str(p) for p in e.absolute_path])
    for error in errors:
        problems.append(f"{where}: {_json_path(data, error.absolute_path)}: {_clip(error.message)}")
    return not errors


def _json_path(data, parts) -> str:
    """``$.cases[3].request.op``, naming the case (or rule) when the path is inside one."""
    parts = list(parts)
    text = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in parts)
    if len(parts) >= 2 and isinstance(data, dict) and parts[0] in ("cases", "rules"):
        try:
            entry = data[parts[0]][parts[1]]
        except (KeyError, IndexError, TypeError):
            return text
        if isinstance(entry, dict) and isinstance(entry.get("id"), str):
            return f"{text} ({parts[0][:-1]} {entry['id']})"
    return text


def _clip(message: str, limit: int = 240) -> str:
    return message if len(message) <= limit else message[:limit] + "..."
