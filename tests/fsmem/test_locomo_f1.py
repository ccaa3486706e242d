"""Hand-made cases checked against LoCoMo's definition (computed by hand, not by running its code)."""

import pytest

from tailmem.metrics.locomo_f1 import locomo_f1, normalize

CASES = [
    # category 4 / 2: plain token F1 after normalisation and Porter stemming
    ("a mansion", "mansion", 4, 1.0),
    ("The Ferrari 488 GTB!", "Ferrari 488 GTB", 4, 1.0),
    ("cats and dogs", "dog", 4, 2 * 0.5 * 1 / 1.5),          # 'and' dropped; cats->cat, dogs->dog
    ("running", "runs", 4, 1.0),                             # both stem to 'run'
    ("Boston", "Tokyo", 4, 0.0),
    ("", "Tokyo", 4, 0.0),
    ("7 May 2023", "7 May, 2023", 2, 1.0),                   # commas dropped
    ("the week before 25 May 2023", "the weekend before May 25, 2023", 2, 2 * (4 / 5) * (4 / 5) / (8 / 5)),
    # category 3: gold cut at the first ';'
    ("Yes", "Yes; because he enjoys performing", 3, 1.0),
    ("yes because", "Yes; because he enjoys performing", 3, 2 * 0.5 * 1 / 1.5),
    # category 1: split both on commas; mean over gold parts of the best predicted part
    ("Aerosmith, The Fireworks", "Aerosmith, The Fireworks", 1, 1.0),
    ("Aerosmith", "Aerosmith, The Fireworks", 1, 0.5),
    ("The Fireworks, Aerosmith, Queen", "Aerosmith, The Fireworks", 1, 1.0),
    ("mansion in Japan", "mansion in Japan, luxury car Ferrari 488 GTB", 1, 0.5),
]


@pytest.mark.parametrize("pred,gold,cat,want", CASES)
def test_locomo_f1(pred, gold, cat, want):
    assert locomo_f1(pred, gold, cat) == pytest.approx(want)


def test_normalize():
    assert normalize("The cat, and a Dog's toy!") == "cat dogs toy"


def test_category_5_is_not_f1():
    with pytest.raises(ValueError):
        locomo_f1("x", "y", 5)
