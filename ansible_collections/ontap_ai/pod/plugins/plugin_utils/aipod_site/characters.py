"""Characters no text of the model may hold: one definition for validation and for every renderer."""
from __future__ import annotations

import re
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


KEY_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]{0,79}")


def shown_key(key: object) -> str:
    """A key as findings may show it: itself when it looks like a variable name, otherwise only its
    length. A file that is not a vars file (a password file linked or copied in) parses into keys
    that are its lines; a refusal must name the file without repeating them."""
    text = str(key)
    return text if KEY_NAME.fullmatch(text) else f"<a key of {len(text)} characters that is not a name, not shown>"
