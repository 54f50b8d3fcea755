"""The state of one data directory: one JSON file, read at start and replaced atomically."""

import json
import os
from pathlib import Path

from forgelib.errors import usage

STATE_FILE = "forge-state.json"


class Store:
    """Collections of records by name, persisted under ``data_dir``."""

    def __init__(self, data_dir):
        self.root = Path(data_dir)
        if self.root.exists() and not self.root.is_dir():
            raise usage(f"--data-dir {data_dir} is not a directory")
        path = self.root / STATE_FILE
        self.state = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}

    def collection(self, kind):
        """The records of ``kind`` by name (created empty on first use)."""
        return self.state.setdefault(kind, {})

    def save(self):
        self.root.mkdir(parents=True, exist_ok=True)
        temporary = self.root / (STATE_FILE + ".tmp")
        temporary.write_text(json.dumps(self.state, sort_keys=True), encoding="utf-8")
        os.replace(temporary, self.root / STATE_FILE)
