"""Text helpers shared by the handlers."""

import re
import unicodedata

REPLACEMENTS = {"ß": "ss", "æ": "ae", "→": "-"}


def slugify(title):
    # TODO: keep CJK characters instead of dropping them
    text = unicodedata.normalize("NFKD", title)
    for old, new in REPLACEMENTS.items():
        text = text.replace(old, new)
    text = re.sub(r"[^a-zA-Z0-9]+", "-", text)
    return text.strip("-").lower()


def banner(name):
    return f"✨ {name} → ready ✨"


print(slugify("Straße → Köln"))
