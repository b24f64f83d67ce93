"""Characters no text of the model may hold: one definition for validation and for every renderer."""
from __future__ import annotations

import unicodedata

# Control, format (bidi overrides, zero-width), line and paragraph separators: text holding one reads
# as something else than it shows, or as more than one line of a CLI or a generated file.
HIDDEN_CATEGORIES = ("Cc", "Cf", "Zl", "Zp")


def is_hidden(char: str) -> bool:
    return unicodedata.category(char) in HIDDEN_CATEGORIES


def hidden_characters(text: str) -> list[str]:
    """'U+000A LINE FEED'-style names of the characters of `text` that no model text may hold."""
    found = []
    for char in text:
        if is_hidden(char):
            name = unicodedata.name(char, "") or {"\n": "LINE FEED", "\r": "CARRIAGE RETURN", "\t": "TAB"}.get(char, "control")
            label = f"U+{ord(char):04X} {name}"
            if label not in found:
                found.append(label)
    return found
