"""The one exception of merge_files: a message and the exit code it ends with."""


class MergeError(Exception):
    """A failure with its exit code: 2 usage, 3 schema/key, 4 cast, 5 input reading, 6 nested input."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
