"""What the pages' figures and the in-browser player must agree on, written once, in the
player's ``explorer/player/constants.js`` (a script the player loads first; its value is JSON):
the palette and the superscript and subscript digits of labels such as 10⁻³ and X₁₃₂. Pure."""

from __future__ import annotations

import json
import re
from pathlib import Path

CONSTANTS_JS = Path(__file__).resolve().parent / "player" / "constants.js"
_ASSIGNMENT = re.compile(r"window\.LANDING_CONSTANTS = (\{.*\});\s*", re.DOTALL)


def _read() -> dict:
    match = _ASSIGNMENT.fullmatch(CONSTANTS_JS.read_text(encoding="utf-8"))
    if match is None:
        raise ValueError(f"{CONSTANTS_JS} is not 'window.LANDING_CONSTANTS = {{JSON}};'")
    return json.loads(match[1])


_CONSTANTS = _read()
# Okabe & Ito (2008): distinguishable under the common colour-vision deficiencies.
PALETTE: list[str] = _CONSTANTS["palette"]
SUPERSCRIPTS = str.maketrans(_CONSTANTS["superscripts"])  # for str.translate
SUBSCRIPTS = str.maketrans(_CONSTANTS["subscripts"])
