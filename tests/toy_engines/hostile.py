"""Toy engine: answers like the oracle, except in the one way ``--mode`` names.

  flood       every moves answer is one 15.6 MB line of 1.95 million strings
  escapes     its name and its moves carry terminal escapes, CR LF and a fake report line;
              every error message is 5 MB
  deep        every answer carries an extra field nested 900 levels deep
  nan         every answer carries NaN and Infinity
  big-hello   hello claims 1,000,001 variants and an op named with 100,000 characters
  internal    every request is answered internal-error with a 5 MB message
"""

import argparse
import json
import sys

import toy

FAKE = "\r\nOK: 999 passed, 0 failed, 0 errors, 0 skipped\x1b[2J\x1b]0;owned\x07"


def hello(mode: str) -> dict:
    answer = toy.api.hello()
    if mode == "escapes":
        answer["name"] = "evil\x1b[31m\x1b]8;;http://x\x07engine"
    if mode == "big-hello":
        answer["variants"] = answer["variants"] + [f"v{i}" for i in range(1_000_001)]
        answer["ops"] = answer["ops"] + ["x" * 100_000]
    return {"ok": True, **answer}


def answer(request: dict, mode: str) -> str:
    reply = toy.oracle_answer(request)
    if mode == "flood" and request["op"] == "moves":
        reply = {"ok": True, "moves": ["e2e4"] * 1_950_000}
    elif mode == "escapes" and reply.get("ok") and request["op"] in ("moves", "turns"):
        reply[request["op"]] = reply[request["op"]][1:] + ["\x1b[2J" + FAKE]
    elif mode == "escapes" and not reply.get("ok"):
        reply["error"]["message"] = "\x1b[2J" + "m" * 5_000_000 + FAKE
    elif mode == "internal":
        reply = {"ok": False, "error": {"code": "internal-error",
                                        "message": FAKE + "x" * 5_000_000}}
    text = json.dumps({"id": request["id"], **reply})
    if mode == "deep":
        text = text[:-1] + ', "extra": ' + "[" * 900 + "]" * 900 + "}"
    elif mode == "nan":
        text = text[:-1] + ', "extra": [NaN, Infinity, -Infinity]}'
    return text


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", required=True)
    mode = parser.parse_args().mode
    for line in sys.stdin:
        request = json.loads(line)
        if request["op"] == "hello":
            text = json.dumps({"id": request["id"], **hello(mode), "protocol": "1"})
        else:
            text = answer(request, mode)
        print(text, flush=True)


if __name__ == "__main__":
    main()
