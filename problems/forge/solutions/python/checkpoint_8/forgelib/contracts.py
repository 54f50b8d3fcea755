"""JSON inputs as contracts: every problem of an input collected with its JSON path, and the
contract version of ``--config`` (2: members an input may not have are problems too)."""

from forgelib.documents import is_name, is_number, parse_object, read_document, read_file
from forgelib.errors import ForgeError

INVALID = object()
"""What a check returns for a value with a problem (already reported): later checks skip it."""


class Check:
    """The problems of one JSON input, by path; ``strict`` (contract 2) also reports members
    that the input's tables do not list."""

    def __init__(self, strict=False):
        self.strict = strict
        self.problems = {}
        self.details = {}

    def fail(self, path, message):
        self.problems.setdefault(path, message)
        return INVALID

    def ensure(self, value, path, valid, message):
        """``value`` when ``valid(value)``; otherwise a problem at ``path`` (nothing new for INVALID)."""
        if value is INVALID:
            return INVALID
        return value if valid(value) else self.fail(path, message)

    def members(self, value, path, known):
        """``value``, which must be an object; under contract 2 only with the ``known`` members."""
        if self.ensure(value, path, lambda value: isinstance(value, dict), "must be an object") is INVALID:
            return INVALID
        for member in value:
            if self.strict and member not in known:
                self.fail(f"{path}.{member}", "is not a member this input may have")
        return value

    def required(self, value, member, path):
        """``value[member]`` of an object ``value`` at ``path``; a problem when it is missing."""
        if value is INVALID:
            return INVALID
        if member not in value:
            return self.fail(f"{path}.{member}", "is required")
        return value[member]

    def array(self, value, path):
        return self.ensure(value, path, lambda value: isinstance(value, list), "must be an array")

    def string(self, value, path):
        return self.ensure(value, path, lambda value: isinstance(value, str), "must be a string")

    def name(self, value, path):
        return self.ensure(value, path, is_name, "must be a name (lowercase letters, digits and hyphens)")

    def quantity(self, value, path):
        return self.ensure(value, path, lambda value: is_number(value) and value > 0,
                           "must be a number greater than zero")

    def whole(self, value, path):
        return self.ensure(value, path, lambda value: is_number(value) and value >= 1 and value == int(value),
                           "must be a whole number of at least 1")

    def unique(self, rows, key, path):
        """Report the ``key`` of every row of ``rows`` (an array at ``path``) that an earlier row has."""
        seen = set()
        for index, row in enumerate(rows):
            value = INVALID if row is INVALID else row[key]
            if value is not INVALID and value in seen:
                self.fail(f"{path}[{index}].{key}", f"{value} appears twice")
            seen.add(value)

    def done(self, what):
        """Raise the ``validation_error`` listing every problem found, if any."""
        if self.problems:
            problems = [{"path": path, "message": message} for path, message in self.problems.items()]
            raise ForgeError("validation_error", f"{what} has {len(problems)} problem(s)",
                             {"problems": problems, **self.details})


def read_checked(options, stdin, what, normalise):
    """The JSON input of ``--file`` or standard input as ``normalise(check, document)`` makes it,
    after raising the ``validation_error`` of every problem it found."""
    check = Check(options.strict)
    document = normalise(check, read_document(options, stdin))
    check.done(what)
    return document


def load_contract(options):
    """The contract version ``--config`` selects (1 without it)."""
    if options.config is None:
        return 1
    check = Check(strict=True)
    config = check.members(parse_object(read_file(options.config, "--config"), "the configuration file"), "$",
                           {"contract"})
    check.ensure(config.get("contract", 1), "$.contract", lambda value: value in (1, 2) and value is not True,
                 "must be 1 or 2")
    check.done("the configuration file")
    return config.get("contract", 1)
