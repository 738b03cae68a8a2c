"""A small two-seat GDL-II game written for the tests: nature deals alice a hidden card,
alice hints at it while bob bets (at once, neither seeing the other's move), then bob,
who saw only the hint, guesses the card. Bob scores 100 for the right card, alice 100
for a wrong guess: a zero-sum game of imperfect information with chance."""

from __future__ import annotations

from pathlib import Path

HIDDEN_CARD = """\
(role random)
(role alice)
(role bob)
(card 1) (card 2) (card 3)
(hint low) (hint high)
(init (step 1))

(<= (legal random (deal ?c)) (true (step 1)) (card ?c))
(<= (legal random noop) (not (true (step 1))))
(<= (legal alice noop) (not (true (step 2))))
(<= (legal alice (say ?h)) (true (step 2)) (hint ?h))
(<= (legal bob noop) (true (step 1)))
(<= (legal bob (bet small)) (true (step 2)))
(<= (legal bob (bet big)) (true (step 2)))
(<= (legal bob (guess ?c)) (true (step 3)) (card ?c))

(<= (sees alice (card ?c)) (does random (deal ?c)))
(<= (sees bob (hint ?h)) (does alice (say ?h)))
(<= (sees alice (bet ?b)) (does bob (bet ?b)))
(<= (sees bob (card ?c)) (true (step 3)) (true (dealt ?c)))

(<= (next (dealt ?c)) (does random (deal ?c)))
(<= (next (dealt ?c)) (true (dealt ?c)))
(<= (next (guessed ?c)) (does bob (guess ?c)))
(<= (next (step 2)) (true (step 1)))
(<= (next (step 3)) (true (step 2)))
(<= (next (step 4)) (true (step 3)))

(<= terminal (true (step 4)))
(<= right (true (dealt ?c)) (true (guessed ?c)))
(<= (goal bob 100) right)
(<= (goal bob 0) (not right))
(<= (goal alice 0) right)
(<= (goal alice 100) (not right))
"""


def hidden_card_file(folder: Path) -> Path:
    """The game written to ``folder`` as ``HiddenCard.kif``."""
    path = folder / "HiddenCard.kif"
    path.write_text(HIDDEN_CARD, encoding="utf-8")
    return path
