"""The validation cache is only a cache: tampered with in every way below, a load gives
exactly what ``DOUBLECHECK_CACHE=off`` gives (doublecheck.validcache).  Each attack works in
a temporary cache folder of its own."""

import json
import os
import subprocess
import sys
import threading

import pytest
from test_plugins import installed
from test_startup import case_file, checks, tree  # noqa: F401 -- fixtures shared with the start-up tests

from doublecheck import casefiles, validcache
from doublecheck.casefiles import load_cases


def outcome(root):
    cases, problems = load_cases(root)
    return [(c.id, c.request, c.expect) for c in cases], problems


@pytest.fixture
def uncached(tree, monkeypatch):
    """What a load of ``tree`` gives with the cache off."""
    folder = os.environ["DOUBLECHECK_CACHE"]
    monkeypatch.setenv("DOUBLECHECK_CACHE", "off")
    expected = outcome(tree)
    monkeypatch.setenv("DOUBLECHECK_CACHE", folder)
    return expected


def record_path():
    return casefiles.checked_record().path


def test_a_forged_entry_for_a_broken_file_is_not_trusted(tree, monkeypatch):
    """A file with no 'cases', put on record with the right secret: it is checked all the same."""
    (tree / "chess" / "two.json").write_text(json.dumps({"variant": "chess", "topic": "two"}))
    monkeypatch.setenv("DOUBLECHECK_CACHE", "off")
    expected = outcome(tree)
    monkeypatch.setenv("DOUBLECHECK_CACHE", str(tree.parent / "record"))
    record = casefiles.checked_record()
    data = (tree / "chess" / "two.json").read_bytes()
    record.add(validcache.file_key("chess/two.json", data))
    record.save()
    assert outcome(tree) == expected
    assert any("two.json" in p and "cases" in p for p in expected[1])


def test_entries_written_without_the_secret_are_ignored(tree, uncached, checks):  # noqa: F811
    outcome(tree)
    path = record_path()
    keys = [validcache.file_key(f"chess/{n}.json", (tree / "chess" / f"{n}.json").read_bytes())
            for n in ("one", "two")]
    path.write_bytes(validcache.MARKER + json.dumps({"fingerprint": path.stem[10:], "keys": keys})[1:].encode())
    before = len(checks)
    assert outcome(tree) == uncached
    assert len(checks) == before + 2        # both files checked in full again


@pytest.mark.parametrize("attack", ["fifo", "dev-zero", "huge", "directory", "garbage"])
def test_a_record_that_is_no_record_changes_nothing(tree, uncached, attack):
    outcome(tree)
    path = record_path()
    path.unlink()
    if attack == "fifo":
        os.mkfifo(path)
    elif attack == "dev-zero":
        path.symlink_to("/dev/zero")
    elif attack == "huge":
        path.write_bytes(validcache.MARKER + b" " * (validcache.MAX_RECORD_BYTES + 10) + b"}")
    elif attack == "directory":
        path.mkdir()
    else:
        path.write_bytes(b"\xff\xfe not json")
    done = {}
    worker = threading.Thread(target=lambda: done.update(result=outcome(tree)), daemon=True)
    worker.start()
    worker.join(120)          # (a FIFO used to block here for ever)
    assert done["result"] == uncached
    assert not list(path.parent.glob(f"{validcache.TEMP_PREFIX}*"))     # no temporary file left


def test_a_secret_that_is_a_fifo_turns_the_cache_off(tree, uncached):
    folder = tree.parent / "record"
    folder.mkdir()
    os.mkfifo(folder / validcache.SECRET_NAME)
    assert record_path() is None
    assert outcome(tree) == uncached


def test_pruning_deletes_only_the_records_it_wrote(tree, monkeypatch):
    folder = tree.parent / "record"
    folder.mkdir()
    own = [folder / f"validated-mine-{i}.json" for i in range(6)]
    for path in own:
        path.write_text('{"my": "own file"}')
    for version in range(8):      # eight fingerprints' records: only the newest few are kept
        record = validcache.Record(casefiles.SCHEMAS_DIR, extra=f"version {version}")
        record.add("k")
        record.save()
    assert all(p.read_text() == '{"my": "own file"}' for p in own)
    written = [p for p in folder.glob("validated-*.json") if validcache.ours(p)]
    assert len(written) == validcache.KEEP_FINGERPRINTS + 1


def test_no_temporary_file_is_left_when_the_record_cannot_be_replaced(tree, monkeypatch):
    record = casefiles.checked_record()
    record.path.mkdir(parents=True)          # a directory where the record goes: replace fails
    (record.path / "x").write_text("")
    record.add("k")
    record.save()
    assert not list(record.path.parent.glob(f"{validcache.TEMP_PREFIX}*"))


def test_the_fingerprint_covers_a_plugins_code(tmp_path, monkeypatch):
    site = installed(tmp_path / "site")
    code = "from doublecheck import casefiles\nprint(casefiles.checked_record().path.name)\n"
    env = dict(os.environ, PYTHONPATH=str(site), DOUBLECHECK_CACHE=str(tmp_path / "record"))

    def path_now():
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                              timeout=120)
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    before = path_now()
    assert path_now() == before
    rules = site / "no_castling" / "rules.py"
    rules.write_text(rules.read_text() + "\n# changed\n")
    assert path_now() != before


def test_the_fingerprint_covers_the_package_version(monkeypatch):
    import doublecheck
    validcache.fingerprint.cache_clear()
    monkeypatch.setattr(doublecheck, "__version__", "1.0", raising=False)
    one = validcache.fingerprint(casefiles.SCHEMAS_DIR)
    validcache.fingerprint.cache_clear()
    monkeypatch.setattr(doublecheck, "__version__", "1.1", raising=False)
    try:
        assert validcache.fingerprint(casefiles.SCHEMAS_DIR) != one
    finally:
        validcache.fingerprint.cache_clear()
