"""Toy engine: answers the trigger position's request under another id."""

import json

import toy


def before(request, opts):
    if toy.triggered(request):
        answer = toy.oracle_answer(request)
        print(json.dumps({"id": request["id"] + 1000, **answer}), flush=True)
        # the real answer follows under the right id, too late: the harness has moved on


if __name__ == "__main__":
    toy.serve(before=before)
