"""Case-file generators, one module per variant; see ``doublecheck.authoring.generate`` for the contract.

``Kit`` holds what every generator module shares: asking the oracle about its
variant and wrapping results as cases and case files with the module's
source and generator lines.
"""

from doublecheck.oracle import api


class Kit:
    def __init__(self, variant: str, source: str, generator: str):
        self.variant, self.source, self.generator = variant, source, generator

    def ask(self, **request) -> dict:
        """The oracle's answer to a request about this variant."""
        return api.handle({"variant": self.variant, **request})

    def case(self, case_id, rules, description, request, expect, source=None) -> dict:
        return {"id": case_id, "rules": rules, "description": description,
                "source": source or self.source, "request": request, "expect": expect}

    def case_file(self, topic, description, cases) -> dict:
        return {"variant": self.variant, "topic": topic, "generated": True,
                "generator": self.generator, "description": description, "cases": cases}
