"""Which expectations accept every output: only those that really do (wildcards stop at line ends)."""

import pytest

from scbench.lint.suite import _accepts_anything
from scbench.problem.model import OutputExpectation as Expect


@pytest.mark.parametrize(("spec", "anything"), [
    (Expect(value="..."), True),
    (Expect(value="(?s).*", regex=True), True),
    (Expect(format="json", value="[..]"), True),
    (Expect(value="[..]"), False),
    (Expect(value=".*", regex=True), False),
    (Expect(format="json", value="[..]", schema={"type": "object"}), False),
    (Expect(value="...", contains=["ok"]), False),
    (Expect(format="json", value="[..]", not_contains=["null"]), False),
    (Expect(value="...", search=["^ok$"]), False),
])
def test_accepts_anything(spec, anything):
    assert _accepts_anything(spec) is anything
