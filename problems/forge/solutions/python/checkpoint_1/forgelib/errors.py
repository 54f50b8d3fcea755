"""Errors a user sees: a code, its exit status and a message."""

EXIT_STATUS = {"usage_error": 2, "validation_error": 3, "not_found": 4, "conflict": 5}


class ForgeError(Exception):
    """A failed command: ``code`` (a key of ``EXIT_STATUS``) and a human ``message``."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message

    def envelope(self):
        return {"error": {"code": self.code, "message": self.message}}

    @property
    def exit_status(self):
        return EXIT_STATUS[self.code]


def usage(message):
    return ForgeError("usage_error", message)


def invalid(message):
    return ForgeError("validation_error", message)


def not_found(kind, name):
    return ForgeError("not_found", f"no {kind} named {name}")


def conflict(message):
    return ForgeError("conflict", message)
