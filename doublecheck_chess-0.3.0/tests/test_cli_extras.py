"""Command-line features that sit on top of the harness: perft --jobs, run --html,
an engine declining a request, and the mutants subcommand's hand-off."""

import json

from doublecheck.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_parallel_perft_matches_serial_with_divide(capsys):
    kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
    _, serial, _ = run(capsys, "perft", "--fen", kiwipete, "--depth", "2", "--divide", "--json")
    code, parallel, _ = run(capsys, "perft", "--fen", kiwipete, "--depth", "2", "--divide",
                            "--jobs", "2", "--json")
    assert code == 0
    assert json.loads(parallel) == json.loads(serial)
    assert json.loads(parallel)["nodes"] == 2039  # published Kiwipete depth 2


def test_parallel_turn_perft_from_a_played_line(capsys):
    args = ("perft", "--variant", "double-move-anul", "--moves", "e2e4", "--depth", "2", "--turns", "--json")
    _, serial, _ = run(capsys, *args)
    code, parallel, _ = run(capsys, *args, "--jobs", "2")
    assert code == 0 and json.loads(parallel) == json.loads(serial)


def test_parallel_perft_reports_bad_input_cleanly(capsys):
    code, out, err = run(capsys, "perft", "--fen", "not a fen", "--depth", "2", "--jobs", "2", "--json")
    assert code == 2
    assert json.loads(out)["error"]["code"] == "invalid-fen"
    assert err.startswith("error: invalid-fen:")


def test_declined_requests_are_skipped_not_passed(capsys):
    code, out, _ = run(capsys, "run", "chess/perft/start-depth-1", "chess/moves/*",
                       "--adapter", "tests.toy_engines.adapters:DeclinesPerft")
    assert code == 0
    assert "does not support this request" in out
    assert "0 failed" in out and "1 skipped" in out


def test_run_html_writes_a_report(capsys, tmp_path):
    report = tmp_path / "report.html"
    code, _, _ = run(capsys, "run", "chess/promotion/*", "--html", str(report))
    assert code == 0
    assert report.read_text().lstrip().lower().startswith("<!doctype html")


def test_mutants_subcommand_hands_over_its_options(capsys):
    code, out, _ = run(capsys, "mutants", "--list", "--variant", "chess")
    assert code == 0
    assert out.count("chess/") >= 8
    code, _, err = run(capsys, "mutants", "--variant", "no-such-variant")
    assert code == 2 and "unknown variant" in err
