"""Lecture presets: one click loads a configuration and shows it, in lecture mode; in a
lecture's own order (the deck, ``deck=`` in the link) a clicker's PageDown opens the next."""

import streamlit as st

from explorer import controls, deck, fragments, lecture, text
from explorer.presets import PRESETS

config = controls.sidebar()
st.title("Lecture presets")
if not config.lecture:
    st.markdown("Each preset loads a configuration into the sidebar and opens the page that "
                "shows it, in lecture mode (large type, the sidebar folded: open it with » at "
                "the top left, and switch lecture mode off there). Everything stays editable "
                "afterwards. In lecture mode a presenter's clicker walks the **deck**: PageDown "
                "opens the next preset, PageUp the previous one; where a preset asks a question "
                f"its answer, the outcome and the end of the run stay hidden until **Reveal** "
                f"({lecture.REVEAL_KEYS}).")

order = lecture.order()
typed = st.text_input(
    "Deck: the lecture's presets in order (their numbers, e.g. 0,4,7,2)",
    value=",".join(map(str, order)), key=f"deck_text_{','.join(map(str, order))}",
    help="The order PageDown and PageUp follow in lecture mode. The link (the address bar) "
         "keeps it as deck=…: prepare a lecture as a link.")
if typed != ",".join(map(str, order)):
    new, message = deck.parse_deck(typed, len(PRESETS))
    if message:
        st.warning(text.markdown(message), icon="⚠️")
    if new != order:
        lecture.set_order(new)
        st.rerun()
if st.button("Start the lecture", icon=":material/slideshow:",
             key=fragments.button_key("deck_start"),
             help="Open the deck's first preset in lecture mode; PageDown opens the next."):
    lecture.open_preset(order[0])


def card(i: int) -> None:
    """Preset i: its number, its title, what to look at and its button. Where it asks a
    question, what to look at tells the outcome: the question comes first, and what to look
    at is folded (so that the page, projected while a lecture is prepared, gives no answer
    away), or in lecture mode left out."""
    preset = PRESETS[i]
    with st.container(border=True):
        st.subheader(f"{i} · {preset.title}")
        if preset.question is None:
            st.markdown(preset.look_at)
        elif config.lecture:
            st.markdown(f"**Predict:** {preset.question.ask}")
        else:
            st.markdown(f"**Question** (answer hidden until Reveal in lecture mode): "
                        f"{preset.question.ask}")
            st.expander("What it shows (the answer)").markdown(preset.look_at)
        if st.button("Show me", key=fragments.button_key(f"preset_{i}"),
                     icon=":material/play_circle:"):
            lecture.open_preset(i)


for i in order:
    card(i)
rest = [i for i in range(len(PRESETS)) if i not in order]
if rest:
    with st.expander(f"Presets not in this deck ({len(rest)})"):
        for i in rest:
            card(i)
