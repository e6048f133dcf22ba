"""Where the case tree and the schemas are, how to load them, and what is wrong with them.

Both travel inside the installed package as data: ``CASES_DIR`` is the
``doublecheck.cases`` folder and ``SCHEMAS_DIR`` the ``doublecheck.schemas``
folder, found through ``importlib.resources`` (a wheel, an sdist or an
editable install all look the same from here).  ``--cases-dir`` points the
commands at another case tree; the schemas always come from the package.

Layout (see ``schemas/``):

- ``cases/rules/<group>.json``: rule catalogue files, merged into one mapping
  from rule id to rule; an id may be defined only once across all groups.  A
  file's ``shared`` map names rules of other groups that also apply to a
  variant (the variant is added to those rules' ``variants``), and its
  ``shared_not_tested`` map says why one of those has no case in that variant
  (added to the rule's ``not_tested``).
- ``cases/<variant>/<topic>.json``: case files.  A case may carry ``options``
  (NAME: VALUE, doublecheck.oracle.options): it is judged under those rule options.
- ``cases/options/<variant>.json``: the generated record of which cases each rule
  option value changes (``doublecheck.authoring.options_record`` writes it;
  ``option_changes(variant, case_tree=None)`` reads it).  Like ``rules/``, the
  folder is no variant folder: no walker of case files reads it as one.

Nothing here raises on a bad file. Every defect becomes a readable problem
string that names the file, and the case id or the JSON path where there is
one: unreadable, oversized, non-UTF-8 or malformed JSON, JSON nested deeper
than the limit (docs/protocol.md, "Limits"), duplicate keys, schema
violations, a topic that differs from the file name, a variant that differs
from the directory, a case id that does not start with ``<variant>/<topic>/``,
duplicate case or rule ids, and cited rule ids the catalogue does not define.
A file with schema errors contributes no cases (or rules), so callers only
ever see well-formed data.

What a schema cannot say is checked at load too (``request_problems``), so a
case never fails at run time for want of a well-formed request: a FEN that
the oracle cannot read, move text that is no move, a number written as
``1.0``, a perft depth over the variant's limit. These are checked in the
order the oracle meets them, and the first error found is no problem when it
is the error the case expects (a case expecting ``invalid-fen`` carries a bad
FEN on purpose). A case with a problem is reported and left out.

Anything in the tree named ``*.json`` that is not a regular file (a
directory, a FIFO, a device) is skipped with a warning rather than opened:
reading a FIFO would wait forever.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from functools import lru_cache
from pathlib import Path

from doublecheck.resource_limits import MAX_DATA_FILE_BYTES, TooDeep, loads
from doublecheck.oracle import variants
from doublecheck.oracle.errors import (CASES_NOT_FOUND, INVALID_RECORD, SCHEMA_UNUSABLE, RulesError, clip,
                                       quote)
from doublecheck.oracle.request_limits import check_perft_depth
from doublecheck.packaged import CASES_DIR, SCHEMAS_DIR
from doublecheck.validcache import Record, file_key, plugin_code



class DataError(Exception):
    """The case tree or a schema cannot be used at all (a damaged install, a wrong --cases-dir)."""

    def __init__(self, code: str, message: str):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


CASE_FILE_SCHEMA = "case-file.schema.json"
RULES_SCHEMA = "rules.schema.json"
RULES_GROUP_DIR = "rules"
OPTIONS_DIR = "options"
OPTION_RECORD_SCHEMA = "option-record.schema.json"
NOT_VARIANT_DIRS = (RULES_GROUP_DIR, OPTIONS_DIR)   # folders of a case tree that hold no cases


def check_cases_dir(cases_dir, need_cases: bool = True) -> Path:
    """``cases_dir`` as a Path, or DataError(cases-not-found) naming it when it is no case tree
    (with ``need_cases=False`` an existing empty folder will do)."""
    path = Path(cases_dir)
    if not path.is_dir():
        what = "does not exist" if not path.exists() else "is not a directory"
        hint = " (the installed package is damaged: reinstall doublecheck-chess)" \
            if path == CASES_DIR else ""
        raise DataError(CASES_NOT_FOUND, f"the case tree {path} {what}{hint}")
    if need_cases and not any(case_file_paths(path)):
        raise DataError(CASES_NOT_FOUND, f"the case tree {path} holds no case files "
                                         f"(expected <variant>/<topic>.json below it)")
    return path


def case_file_paths(tree) -> list[Path]:
    """Every ``<variant>/<topic>.json`` below a case tree (``rules/`` and ``options/`` left out)."""
    return [p for p in Path(tree).glob("*/*.json") if p.parent.name not in NOT_VARIANT_DIRS]


@lru_cache(maxsize=None)
def schema(name: str) -> dict:
    """The JSON Schema ``name`` from the package; DataError(schema-unusable) naming the file if not."""
    from jsonschema import Draft202012Validator   # on demand: most commands never validate

    path = SCHEMAS_DIR / name
    try:
        data = loads(path.read_text(encoding="utf-8"))
        Draft202012Validator.check_schema(data)
    except FileNotFoundError:
        raise DataError(SCHEMA_UNUSABLE, f"the schema {path} is missing "
                                         f"(the installed package is damaged: reinstall doublecheck-chess)") from None
    except Exception as e:
        raise DataError(SCHEMA_UNUSABLE, f"the schema {path} cannot be used: "
                                         f"{type(e).__name__}: {clip(str(e), 240)}") from None
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
    covers: list[str] = field(default_factory=list)   # state components (the coverage matrix)
    tier: str = "default"   # "deep": left out of a default run (select_tier)
    options: dict = field(default_factory=dict)   # the rule options it is judged under

    @property
    def nodes(self) -> int | None:
        """The perft count the case expects (None for other operations)."""
        if "nodes" in self.expect:
            return self.expect["nodes"]
        if "divide" in self.expect:
            return sum(self.expect["divide"].values())
        return None


def warn_on_stderr(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr)


def catalogue_dir(cases_dir: Path) -> Path:
    """The rule catalogue a case tree uses: its own ``rules/`` folder, or, for a tree without
    one (a user's vectors, written by ``doublecheck generate --cases-dir``), the installed one."""
    own = cases_dir / RULES_GROUP_DIR
    return own if own.exists() else CASES_DIR / RULES_GROUP_DIR


def load_rules(cases_dir=CASES_DIR, warn=warn_on_stderr) -> tuple[dict[str, dict], list[str]]:
    """All catalogue rules by id, and the problems found while loading them.

    The catalogue files of ``cases_dir`` come first, then those of each variant
    plugin (``plugin_trees``).  A plugin whose catalogue has a problem is left
    out, with a warning naming it, so one broken package never stops the rest.
    ``warn`` is called with a message for each entry skipped because it is not a
    regular file, and for each plugin left out."""
    cases_dir = Path(cases_dir)
    problems: list[str] = []
    rules: dict[str, dict] = {}
    defined_in: dict[str, Path] = {}
    catalogue = catalogue_dir(cases_dir)
    files = _regular_files(catalogue.glob("*.json"), catalogue.parent, warn)
    if not files:
        problems.append(f"{_show(catalogue, catalogue.parent)}: no rule catalogue files")
    record = checked_record()
    _add_group(files, catalogue.parent, rules, defined_in, problems, record)
    for tree, ids in plugin_trees(cases_dir):
        if tree == cases_dir:
            continue
        found, where_from, trouble = dict(rules), dict(defined_in), []
        own = _regular_files((tree / RULES_GROUP_DIR).glob("*.json"), tree, warn)
        _add_group(own, tree, found, where_from, trouble, record)
        if not own:
            trouble.append(f"{_show(tree / RULES_GROUP_DIR, tree)}: no rule catalogue files")
        if trouble:
            _leave_out(ids, trouble, warn)
        else:
            rules, defined_in = found, where_from
    record.save()
    return rules, problems


def _add_group(files, root: Path, rules: dict, defined_in: dict, problems: list, record) -> None:
    """Add the rules of catalogue ``files`` (below ``root``) to ``rules``, then their
    ``shared`` and ``shared_not_tested`` maps (which may name rules of earlier groups)."""
    shared, untested, absent = [], [], []
    for path in files:
        where = _show(path, root)
        data, key, known = _read_checked(path, root, RULES_SCHEMA, record, problems)
        if data is None:
            continue
        record.add(key)
        for rule in data["rules"]:
            rid = rule["id"]
            if rid in rules:
                problems.append(f"{where}: rule {rid} is already defined in "
                                f"{_show(defined_in[rid], root)}")
                continue
            rules[rid] = rule
            defined_in[rid] = path
        shared += [(where, variant, ids) for variant, ids in data.get("shared", {}).items()]
        untested += [(where, variant, reasons)
                     for variant, reasons in data.get("shared_not_tested", {}).items()]
        absent += [(where, variant, reasons)
                   for variant, reasons in data.get("components_absent", {}).items()]
    for where, variant, ids in shared:  # rules of other files that a file's variant keeps
        for rid in ids:
            if rid not in rules:
                problems.append(f"{where}: shared rule {rid} for {variant} is not defined")
            elif variant not in rules[rid]["variants"]:
                rules[rid] = {**rules[rid], "variants": rules[rid]["variants"] + [variant]}
    for where, variant, reasons in untested:  # why a shared rule has no case in that variant
        for rid, reason in reasons.items():
            if rid not in rules or variant not in rules[rid]["variants"]:
                problems.append(f"{where}: shared_not_tested names {rid} for {variant}, which is "
                                f"not a rule of {variant}")
            elif variant in rules[rid].get("not_tested", {}):
                problems.append(f"{where}: rule {rid} already says why it is not tested in {variant}")
            else:
                rules[rid] = {**rules[rid], "not_tested": {**rules[rid].get("not_tested", {}),
                                                           variant: reason}}
    for where, variant, reasons in absent:  # components a variant does not have at all
        for comp, reason in reasons.items():
            _mark_absent(rules, where, variant, comp, reason, problems)
    for rid in rules:   # in registry order, however the files happened to be read
        rules[rid] = _in_registry_order(rules[rid])


def _in_registry_order(rule: dict) -> dict:
    order = {v: i for i, v in enumerate(variants.VARIANT_NAMES)}
    rank = lambda v: order.get(v, len(order))  # noqa: E731
    out = {**rule, "variants": sorted(rule["variants"], key=rank)}
    if "not_tested" in rule:
        out["not_tested"] = dict(sorted(rule["not_tested"].items(), key=lambda item: rank(item[0])))
    return out


def _mark_absent(rules, where, variant, comp, reason, problems) -> None:
    """Record on every rule of ``variant`` that defines ``comp`` that the variant lacks it
    (the rule's ``components_absent``, read by the coverage matrix)."""
    hit = [rid for rid, r in rules.items() if variant in r["variants"] and comp in r.get("components", [])]
    if not hit:
        problems.append(f"{where}: components_absent names {comp} for {variant}, but no rule of "
                        f"{variant} has that component")
    for rid in hit:
        gone = {**rules[rid].get("components_absent", {})}
        gone[variant] = {**gone.get(variant, {}), comp: reason}
        rules[rid] = {**rules[rid], "components_absent": gone}


def plugin_trees(cases_dir) -> list[tuple[Path, list[str]]]:
    """(case tree, its variant ids) of every variant plugin package, for the variants whose
    cases ``cases_dir`` does not hold itself: a case tree given with --cases-dir that has an
    ``<id>/`` folder (written there by ``doublecheck generate --cases-dir``) is read instead
    of the plugin's own."""
    trees: dict[Path, list[str]] = {}
    for v in variants.plugins():
        tree = v.case_tree()
        if tree == Path(cases_dir) or not (Path(cases_dir) / v.id).is_dir():
            trees.setdefault(tree, []).append(v.id)
    return list(trees.items())


_told: set[str] = set()   # each plugin left out is said once per process, however often loaded


def _leave_out(ids: list[str], trouble: list[str], warn, what: str | None = None) -> None:
    """Warn once per problem that a plugin's variants (or ``what``: one of its files) are
    left out, naming the plugin."""
    who = variants.descriptor(ids[0]).plugin
    what = what or f"{', '.join(ids)} left out"
    for problem in trouble:
        message = f"variant plugin {who}: {what}: {problem}"
        if message not in _told:
            _told.add(message)
            warn(message)


def _leave_out_file(ids: list[str], path: Path, trouble: list[str], warn) -> None:
    _leave_out(ids, trouble, warn, f"case file {path} left out (its other files are kept)")


def load_cases(cases_dir=CASES_DIR, warn=warn_on_stderr, deep: bool = False, wanted=None
               ) -> tuple[list[Case], list[str]]:
    """All cases below ``cases_dir`` and every problem found (catalogue included).

    ``warn`` is called with a message for each entry skipped because it is not a regular file.
    The cases of deep-tier files (``"tier": "deep"``) are returned only with ``deep``;
    their files are read and checked either way.

    ``wanted(variant, raw case)``, when given, says which cases the caller will use:
    a file none of whose cases is wanted is neither checked nor returned (a run of
    one case file checks that file and the catalogue only).  A file already checked
    with the same bytes and code is not checked again (``doublecheck.validcache``).
    """
    cases_dir = Path(cases_dir)
    rules, problems = load_rules(cases_dir, warn)
    found = _CaseFiles(rules, deep, checked_record(), wanted)
    for path in _regular_files(cases_dir.glob("*.json"), cases_dir, warn):
        problems.append(f"{_show(path, cases_dir)}: case files belong in a variant directory")
    plugin_dirs = {tree / v for tree, ids in plugin_trees(cases_dir) if tree != cases_dir for v in ids}
    mine = [p for p in case_file_paths(cases_dir) if p.parent not in plugin_dirs]
    found.add(_regular_files(mine, cases_dir, warn), cases_dir, problems)
    for tree, ids in plugin_trees(cases_dir):
        if tree == cases_dir or not any(v in r["variants"] for r in rules.values() for v in ids):
            continue    # its catalogue was left out (load_rules said why)
        paths = sorted(p for v in ids for p in (tree / v).glob("*.json"))
        for path in _regular_files(paths, tree, warn):   # a bad file costs that file only
            trial, trouble = found.copy(), []
            trial.add([path], tree, trouble)
            if trouble:
                _leave_out_file(ids, path, trouble, warn)
            else:
                found = trial
    found.record.save()
    return found.cases, problems


class _CaseFiles:
    """The cases read so far, and the ids seen (an id is used once across all case trees)."""

    def __init__(self, rules, deep, record, wanted=None):
        self.rules, self.deep, self.record, self.wanted = rules, deep, record, wanted
        self.cases: list[Case] = []
        self.first_seen: dict[str, Path] = {}

    def copy(self):
        other = _CaseFiles(self.rules, self.deep, self.record, self.wanted)
        other.cases, other.first_seen = list(self.cases), dict(self.first_seen)
        return other

    def add(self, paths, root: Path, problems: list[str]) -> None:
        for path in paths:
            if path.parent.name not in NOT_VARIANT_DIRS:
                self._add_file(path, root, problems)

    def _add_file(self, path, root, problems) -> None:
        where = _show(path, root)
        data, key, known = _read_checked(path, root, CASE_FILE_SCHEMA, self.record, problems, self.wanted)
        if data is None:
            return
        refused: set = set()
        mine = [] if known else _case_file_problems(path, data, where, refused)
        problems += mine
        if not mine:
            self.record.add(key)
        for case in self._file_cases(path, data, where, root, problems):
            if case.id not in refused and (case.tier != "deep" or self.deep):
                self.cases.append(case)

    def _file_cases(self, path, data, where, root, problems):
        """The cases of one checked file; duplicate ids (across files) and unknown rule ids
        are problems, checked on every load since they depend on other files."""
        variant, topic = data["variant"], data["topic"]
        for raw in data["cases"]:
            cid = raw["id"]
            here = f"{where}: case {cid}"
            if cid in self.first_seen:
                problems.append(f"{here}: duplicate id, first used in {_show(self.first_seen[cid], root)}")
                continue
            self.first_seen[cid] = path
            for rid in raw["rules"]:
                if rid not in self.rules:
                    problems.append(f"{here}: unknown rule id '{rid}'")
            yield Case(id=cid, variant=variant, topic=topic, rules=list(raw["rules"]),
                       description=raw["description"], source=raw["source"],
                       request={**raw["request"], "variant": variant}, expect=raw["expect"],
                       path=path, generated=data["generated"], covers=list(raw.get("covers", [])),
                       tier=data.get("tier", "default"), options=dict(raw.get("options", {})))


def checked_record() -> Record:
    """The record of files that passed their checks, for these schemas, this checking code
    and the variants installed now (a plugin changes what the schemas accept)."""
    return Record(SCHEMAS_DIR, extra=",".join(variants.VARIANT_NAMES) + "\0" + plugin_code())


def _read_checked(path: Path, root: Path, schema_name: str, record: Record, problems: list[str],
                  wanted=None):
    """(data, key, known) for a file that reads as JSON and passes its schema, where ``key``
    is its record key and ``known`` says the record has it (then nothing was checked:
    the same bytes passed every check before); (None, key, known) otherwise, the
    problems added.  With ``wanted``, a case file none of whose cases is wanted gives
    None, unchecked."""
    where = _show(path, root)
    try:
        text = read_data_text(path)
    except UnreadableFile as e:
        problems.append(f"{where}: {e}")
        return None, None, False
    key = file_key(path.relative_to(root).as_posix(), text.encode("utf-8"))
    if record.known(key):   # checked before use all the same: strict JSON of the right shape
        ok, data = _parse_json(text, where, [])
        if ok and _has_shape(data, schema_name):
            return (data if _is_wanted(data, wanted) else None), key, True
    ok, data = _parse_json(text, where, problems)
    if not ok or not _is_wanted(data, wanted) or not _valid(_validator(schema_name, problems), data, where,
                                                                problems):
        return None, key, False
    return data, key, False


def _has_shape(data, schema_name: str) -> bool:
    """Whether a file found on record has every field the loaders read, of the right type (a
    record entry is never trusted with less: a wrong one must not crash a run)."""
    def strings(value):
        return isinstance(value, list) and all(isinstance(v, str) for v in value)

    def maps(value, inner):
        return isinstance(value, dict) and all(inner(v) for v in value.values())

    if not isinstance(data, dict):
        return False
    if schema_name == RULES_SCHEMA:
        return (isinstance(data.get("rules"), list)
                and all(isinstance(r, dict) and isinstance(r.get("id"), str) and strings(r.get("variants"))
                        and strings(r.get("components", [])) for r in data["rules"])
                and maps(data.get("shared", {}), strings)
                and maps(data.get("shared_not_tested", {}), lambda v: maps(v, lambda x: isinstance(x, str)))
                and maps(data.get("components_absent", {}), lambda v: maps(v, lambda x: isinstance(x, str))))
    fields = {"id": str, "description": str, "source": str, "request": dict, "expect": dict}
    return (isinstance(data.get("variant"), str) and isinstance(data.get("topic"), str)
            and isinstance(data.get("generated"), bool) and isinstance(data.get("tier", "default"), str)
            and isinstance(data.get("cases"), list)
            and all(isinstance(c, dict) and all(isinstance(c.get(k), t) for k, t in fields.items())
                    and strings(c.get("rules")) and strings(c.get("covers", [])) for c in data["cases"]))


def _is_wanted(data, wanted) -> bool:
    """Whether a case file holds a case the caller wants (a malformed one is checked, to report it)."""
    if wanted is None or not isinstance(data, dict) or not isinstance(data.get("cases"), list):
        return True
    variant = data.get("variant")
    return any(not isinstance(raw, dict) or not isinstance(raw.get("id"), str) or wanted(variant, raw)
               for raw in data["cases"])


def _case_file_problems(path: Path, data: dict, where: str, refused: set) -> list[str]:
    """What a schema-valid case file can still get wrong by itself: its place in the tree,
    its case ids' prefix, and requests the oracle would refuse (``request_problems``;
    those cases' ids go into ``refused``)."""
    variant, topic = data["variant"], data["topic"]
    out = []
    if variant != path.parent.name:
        out.append(f"{where}: variant '{variant}' does not match the directory '{path.parent.name}'")
    if topic != path.stem:
        out.append(f"{where}: topic '{topic}' does not match the file name '{path.stem}'")
    for raw in data["cases"]:
        here = f"{where}: case {raw['id']}"
        if not raw["id"].startswith(f"{variant}/{topic}/"):
            out.append(f"{here}: id should start with '{variant}/{topic}/'")
        wrong = option_problems(variant, raw.get("options")) or \
            request_problems(variant, raw["request"], raw["expect"], raw.get("options"))
        if wrong:
            refused.add(raw["id"])
        out += [f"{here}: {w}" for w in wrong]
    return out


def case_ids(cases_dir=CASES_DIR) -> set[str]:
    """The ids of every case below ``cases_dir``, read without checking anything (cheap:
    for telling an id no file has from one a partial load left out)."""
    ids = set()
    for path in case_file_paths(cases_dir):
        try:
            data = json.loads(read_data_text(path))
        except (UnreadableFile, ValueError):
            continue
        raws = data.get("cases") if isinstance(data, dict) else None
        ids.update(r["id"] for r in raws or () if isinstance(r, dict) and isinstance(r.get("id"), str))
    return ids


def option_problems(variant: str, options) -> list[str]:
    """What is wrong with a case's ``options``: an unknown name or value, an option the
    variant does not take, or a default value (a case under the default rules says none)."""
    if not options:
        return []
    from doublecheck.oracle import options as declared
    cls = variants.descriptor(variant).rules_class()
    try:
        declared.checked_for(cls, options)   # known, taken by the variant, playable together
    except RulesError as e:
        return [f"$.options: {e.message}"]
    return [f"$.options.{name}: {value} is the default; a case under the default rules names "
            f"no option" for name, value in options.items() if value == declared.default_of(cls, name)]


def option_record_path(cases_dir, variant: str) -> Path:
    """Where a case tree keeps the record of what each option changes in ``variant``."""
    return Path(cases_dir) / OPTIONS_DIR / f"{variant}.json"


def option_changes(variant: str, case_tree=None) -> dict[str, dict]:
    """What each rule option value changes in ``variant``, from the generated record
    ``<case tree>/options/<variant>.json`` (``case_tree`` None: the tree that holds the
    variant's cases, the package's own or a variant plugin's):
    ``{"NAME=VALUE": {"changed": set of case ids, "not_recomputed": {case id: reason}}}``.
    ``{}`` when the variant has no record (it takes no option).  DataError(invalid-record)
    naming the file when the record cannot be read or breaks its schema."""
    if case_tree is None:
        own = variants.descriptor(variant).case_tree()
        case_tree = own if own is not None else CASES_DIR
    path = option_record_path(case_tree, variant)
    if not path.exists():
        return {}
    stat = path.stat()   # (read once per version of the file: a run asks for every case)
    return _option_changes(variant, str(path), stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=64)
def _option_changes(variant: str, where: str, mtime_ns: int, size: int) -> dict[str, dict]:
    """``option_changes`` of the record at ``where`` as it stands (its time and size); the
    result is shared by every caller, which only reads it."""
    path = Path(where)
    problems: list[str] = []
    try:
        text = read_data_text(path)
    except UnreadableFile as e:
        raise DataError(INVALID_RECORD, str(e)) from None
    ok, data = _parse_json(text, str(path), problems)
    if ok:
        _valid(_validator(OPTION_RECORD_SCHEMA, problems), data, str(path), problems)
    if not problems and data["variant"] != variant:
        problems.append(f"{path}: the record is of {data['variant']}, not {variant}")
    if problems:
        raise DataError(INVALID_RECORD, "; ".join(problems[:3]))
    return {key: {"changed": set(entry["changed"]), "not_recomputed": dict(entry["not_recomputed"])}
            for key, entry in data["changes"].items()}


def request_problems(variant: str, request: dict, expect: dict, options=None) -> list[str]:
    """What would make a schema-valid case fail at run time for want of a
    well-formed request (see the module docstring), judged under the case's rule
    ``options``; empty when nothing does."""
    from doublecheck.oracle import api, notation   # on demand: only files not on record are checked
    out = [f"$.{where}: {value!r} is not a whole number (write {quote(int(value))}, not {value!r})"
           for where, value in _numbers(request, expect) if type(value) is not int]
    if out:
        return out
    try:
        rules = variants.get(variant, options)
    except RulesError as e:   # a variant the schema knows but this installation lacks
        return [f"$.variant: {e.message}"]

    def depth():
        if request["op"] == "perft":
            check_perft_depth(rules, request["depth"], request.get("turns", False))

    def fen():
        if "fen" in request:
            rules.parse_fen(request["fen"])

    def moves():
        for token in api.split_tokens(request.get("moves", [])):
            notation.read_token(rules, token)

    # In the oracle's order: the first of these errors is the answer, the later
    # checks are never reached.  The error the case expects is no problem.
    expected = expect.get("error", {}).get("code")
    for where, check in (("depth", depth), ("fen", fen), ("moves", moves)):
        try:
            check()
        except RulesError as e:
            if e.code != expected:
                out.append(f"$.request.{where}: the answer would be the error {e.code}, "
                           f"which the case does not expect: {e.message}")
            break
    return out


def _numbers(request: dict, expect: dict):
    """(where, value) for every count in a case: JSON Schema takes 1.0 for an
    integer, the protocol does not."""
    if "depth" in request:
        yield "request.depth", request["depth"]
    if "nodes" in expect:
        yield "expect.nodes", expect["nodes"]
    for step, count in expect.get("divide", {}).items():
        yield f"expect.divide[{step!r}]", count


def select(cases, variant=None, rule=None, pattern=None) -> list[Case]:
    """The cases of ``variant`` that cite ``rule`` and whose id matches the glob ``pattern``.

    Each criterion left as None matches everything.
    """
    return [c for c in cases
            if (variant is None or c.variant == variant)
            and (rule is None or rule in c.rules)
            and (pattern is None or fnmatchcase(c.id, pattern))]


def select_tier(cases, deep: bool = False, max_nodes: int | None = None) -> list[Case]:
    """The cases a run takes by tier: all with ``deep``, otherwise the default tier only.
    ``max_nodes`` (--max-nodes, --quick) only ever leaves cases out, so a quicker run never
    runs a case the default run does not; it is accepted here for the callers that pass it."""
    return [c for c in cases if deep or c.tier != "deep"]


def expected_nodes(case) -> int:
    """The perft nodes a case expects (0 for other operations): what answering it costs.
    The runner orders and times cases by it, and the deep split picks the cases it splits."""
    return case.expect.get("nodes", sum(case.expect.get("divide", {}).values()))


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


def _not_json(constant: str):
    """NaN and Infinity are not JSON (the reports, which quote cases, are strict JSON)."""
    raise ValueError(f"{constant} is not JSON")


def _regular_files(paths, cases_dir: Path, warn) -> list[Path]:
    """The regular files among ``paths``, sorted; a warning for every other entry."""
    found = []
    for path in sorted(paths):
        try:
            mode = path.stat().st_mode
        except OSError as e:  # a dangling or looping symbolic link
            warn(f"{_show(path, cases_dir)}: skipped: {e.strerror or e}")
            continue
        if stat.S_ISREG(mode):
            found.append(path)
        else:
            kind = "a directory" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode) \
                else "not a regular file"
            warn(f"{_show(path, cases_dir)}: skipped: it is {kind}, not a case file")
    return found


class UnreadableFile(Exception):
    """A data file that cannot be read as text; the message does not name the file."""


def read_data_text(path: Path) -> str:
    """The text of a case, rule or generated file: a regular file of at most
    MAX_DATA_FILE_BYTES, in UTF-8.  UnreadableFile says what is wrong."""
    try:  # O_NONBLOCK: opening a FIFO must not wait for a writer
        with open(os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)), "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                raise UnreadableFile("not a regular file")
            data = f.read(MAX_DATA_FILE_BYTES + 1)
    except OSError as e:
        raise UnreadableFile(f"cannot read: {e.strerror or e}") from None
    if len(data) > MAX_DATA_FILE_BYTES:
        raise UnreadableFile(f"larger than {MAX_DATA_FILE_BYTES // (1024 * 1024)} MiB, the limit "
                             f"for a data file (doublecheck docs protocol, \"Limits\")")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise UnreadableFile(f"not UTF-8 text: byte {data[e.start]:#04x} at line {line} "
                             f"(byte offset {e.start}) cannot be decoded") from None


def _parse_json(text: str, where: str, problems: list[str]) -> tuple[bool, object]:
    """(True, data) for JSON text; (False, None) after recording the problem."""
    try:
        return True, loads(text, object_pairs_hook=_no_duplicate_keys, parse_constant=_not_json)
    except TooDeep as e:
        problems.append(f"{where}: JSON nested too deep: {e}")
    except json.JSONDecodeError as e:
        problems.append(f"{where}: malformed JSON at line {e.lineno}, column {e.colno}: {e.msg}")
    except ValueError as e:
        problems.append(f"{where}: malformed JSON: {clip(str(e), 240)}")
    return False, None


@lru_cache(maxsize=None)
def _schema_validator(name: str):
    """(validator, None), or (None, reason) when the schema file is unusable."""
    from jsonschema import Draft202012Validator, validators

    # an integer is a JSON number without a fraction: an expected count of 20.0 is refused
    strict = validators.extend(Draft202012Validator, type_checker=Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda checker, value: type(value) is int))
    try:
        return strict(_with_plugin_variants(schema(name))), None
    except DataError as e:  # a broken schema must not hide the case problems
        return None, e.message


def _with_plugin_variants(schema: dict) -> dict:
    """A schema whose list of variant ids (``$defs.variant``, and the variant alternatives
    of ``$defs.case-id``) also names the variants of installed plugins: the files list the
    built-ins, and a plugin's cases and catalogue are checked by the same schema."""
    plugins = [v.id for v in variants.plugins()]
    defs = schema.get("$defs", {})
    if not plugins or "enum" not in defs.get("variant", {}):
        return schema
    names = list(variants.REGISTRY) + plugins
    out = {**defs, "variant": {**defs["variant"], "enum": names}}
    if "case-id" in defs:
        tail = defs["case-id"]["pattern"].split(")/", 1)[1]
        out["case-id"] = {**defs["case-id"], "pattern": f"^({'|'.join(names)})/{tail}"}
    return {**schema, "$defs": out}


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
        problems.append(f"{where}: {_json_path(data, error.absolute_path)}: {clip(error.message, 240)}")
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

