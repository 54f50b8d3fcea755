"""Reference solution of {{ name }}, checkpoint 1 (scaffolded by scbench new)."""

import json
import re
import sys
from pathlib import Path

WORDS = Path("words.txt")


def read(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError:
        print(f"error: cannot read {path}", file=sys.stderr)
        sys.exit(1)


def words_of(text: str) -> list[str]:
    return [word.lower() for word in re.findall(r"[^\W_]+", text)]


def count(path: str) -> None:
    text = read(path)
    print(json.dumps({"lines": len(text.splitlines()), "words": len(words_of(text))}))


def words(path: str) -> None:
    for word in sorted(set(words_of(read(path)))):
        print(word)


def add(word: str) -> None:
    known = WORDS.read_text(encoding="utf-8").split() if WORDS.exists() else []
    known.append(word.lower())
    WORDS.write_text("".join(f"{item}\n" for item in known), encoding="utf-8")
    print(f"added {word.lower()} ({len(known)} words)")


def listing() -> None:
    known = WORDS.read_text(encoding="utf-8").split() if WORDS.exists() else []
    for number, word in enumerate(known, 1):
        print(json.dumps({"n": number, "word": word}))


COMMANDS = {"count": count, "words": words, "add": add, "list": listing}

if __name__ == "__main__":
    COMMANDS[sys.argv[1]](*sys.argv[2:])
