"""The lecture deck: the presets in a lecture's order, and where PageDown and PageUp lead.

Pure functions (no streamlit): ``parse_deck`` reads a link's ``deck=0,4,7,2`` (a malformed
entry is named and left out; the rest of the deck is kept), ``neighbour`` gives the preset after
or before the one shown, ``parse_ask_at`` a link's ``ask_at=`` (the iteration a question
stops at). ``explorer.lecture`` draws them.
"""

from __future__ import annotations

from .text import quote

NAMED = 3  # malformed entries named in a message; the rest are counted
MAX_SLIDES = 100  # a deck longer than this is cut: a link can hold anything


def _problems(bad: list[str]) -> str:
    more = len(bad) - NAMED
    return ", ".join(bad[:NAMED]) + (f" and {more} more" if more > 0 else "")


def parse_deck(raw: str, count: int) -> tuple[list[int], str | None]:
    """The deck from ``raw`` (preset numbers 0 .. count − 1 separated by commas, e.g. "0,4,7,2")
    and a message when some entry is not such a number or repeats one before it (None when all
    are good). Malformed entries are left out, the others kept in their order; a deck with no
    good entry is every preset in the page's order, so that a typo never loses the lecture."""
    order: list[int] = []
    bad: list[str] = []
    entries = [e.strip() for e in str(raw).split(",")]
    for entry in entries[:MAX_SLIDES]:
        if not entry:
            continue
        if not (entry.isascii() and entry.isdigit()):
            bad.append(f"{quote(entry, 12)} is not a preset number")
        elif int(entry) >= count:
            bad.append(f"{entry} is not a preset (they are numbered 0 to {count - 1})")
        elif int(entry) in order:
            bad.append(f"{entry} comes twice (kept where it first comes)")
        else:
            order.append(int(entry))
    if len(entries) > MAX_SLIDES:
        bad.insert(0, f"the deck is cut after {MAX_SLIDES} entries")
    if not order:
        bad = bad or ["it names no preset"]
        order = list(range(count))
        kept = "The deck is every preset, in the page's order."
    else:
        kept = f"The deck keeps {', '.join(map(str, order))}."
    if not bad:
        return order, None
    return order, f"URL parameter deck={quote(raw, 60)}: {_problems(bad)}. {kept}"


def deck_query(order: list[int], count: int) -> str | None:
    """``order`` for a link's ``deck=``, or None when it is every preset in the page's order
    (the default needs no parameter)."""
    return None if order == list(range(count)) else ",".join(map(str, order))


def neighbour(order: list[int], current: int | None, step: int) -> int | None:
    """The preset ``step`` places after (PageDown: +1) or before (PageUp: −1) ``current`` in
    ``order``; None past either end. From a preset outside the deck (or none), PageDown opens
    the deck's first preset and PageUp its last."""
    if not order:
        return None
    if current not in order:
        return order[0] if step > 0 else order[-1]
    i = order.index(current) + step
    return order[i] if 0 <= i < len(order) else None


def position(order: list[int], current: int) -> str:
    """Where ``current`` is in the deck, e.g. "2 of 4 in the deck" (or "not in this deck")."""
    if current not in order:
        return "not in this deck"
    return f"{order.index(current) + 1} of {len(order)} in the deck"


def parse_ask_at(raw: str, high: int) -> tuple[int | None, str | None]:
    """A link's ``ask_at=``: the iteration (0 .. high) at which the player stops for the
    question, or None with a message when it is not one."""
    raw = str(raw).strip()
    if raw.isascii() and raw.isdigit() and int(raw) <= high:
        return int(raw), None
    return None, (f"URL parameter ask_at={quote(raw, 20)} is not an iteration from 0 to "
                  f"{high}; the question stops where its preset says.")
