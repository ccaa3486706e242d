"""Generated text: a short description per state and a name per action, from a seed.

Why this shape: a semantic (LLM) policy needs something to reason with, but predicting the next state must still
require memory. So a state reads like a place ("The mossy courtyard of the harbor district. Paths lead out in 3
directions."), states of one region share the region's theme word, and an action names a path and the *theme of
the destination's region* ("take the copper stair toward the orchard district") - a hint that helps navigation,
never the destination itself.
"""

from __future__ import annotations

import numpy as np

THEMES = (
    "harbor",
    "orchard",
    "foundry",
    "library",
    "market",
    "garden",
    "quarry",
    "monastery",
    "observatory",
    "mill",
    "vineyard",
    "lighthouse",
    "bazaar",
    "archive",
    "forge",
    "greenhouse",
    "canal",
    "citadel",
    "meadow",
    "marsh",
    "glacier",
    "desert",
    "canyon",
    "lagoon",
    "bamboo",
    "cedar",
    "amber",
    "jade",
    "saffron",
    "coral",
    "tannery",
    "pottery",
    "apiary",
    "brewery",
    "shipyard",
    "printworks",
    "arena",
    "conservatory",
    "mint",
    "bathhouse",
)
QUALIFIERS = ("", "upper ", "lower ", "old ", "new ", "outer ", "inner ")  # more regions than themes
ADJECTIVES = (
    "quiet",
    "crowded",
    "sunlit",
    "shadowy",
    "narrow",
    "wide",
    "crumbling",
    "polished",
    "windy",
    "misty",
    "painted",
    "hidden",
    "ancient",
    "busy",
    "empty",
    "tiled",
    "mossy",
    "lantern-lit",
    "echoing",
    "fragrant",
    "cold",
    "warm",
    "dusty",
    "gilded",
    "humble",
    "tall",
    "low",
    "round",
    "sunken",
    "bright",
    "dim",
    "vaulted",
)
LANDMARKS = (
    "courtyard",
    "fountain",
    "stairway",
    "workshop",
    "tower",
    "footbridge",
    "archway",
    "plaza",
    "gatehouse",
    "cellar",
    "terrace",
    "well",
    "alcove",
    "gallery",
    "chapel",
    "kiosk",
    "pavilion",
    "shrine",
    "stable",
    "granary",
    "lookout",
    "cloister",
    "atrium",
    "corridor",
    "landing",
    "arcade",
    "dock",
    "pier",
    "yard",
    "hall",
    "loft",
    "garret",
)
MATERIALS = (
    "stone",
    "cedar",
    "copper",
    "brick",
    "iron",
    "marble",
    "rope",
    "glass",
    "oak",
    "slate",
    "bronze",
    "willow",
    "granite",
    "pine",
    "clay",
    "silver",
    "reed",
    "basalt",
    "birch",
    "tin",
    "chalk",
    "ash",
    "flint",
    "ivory",
)
WAYS = ("path", "stair", "lane", "gate", "tunnel", "bridge", "arch", "ladder")


def region_themes(n_regions: int, rng: np.random.Generator) -> list[str]:
    """One distinct theme per region: themes in a seeded order, then qualified, then numbered."""
    order = [THEMES[i] for i in rng.permutation(len(THEMES))]
    names = [q + t for q in QUALIFIERS for t in order]
    return [names[r] if r < len(names) else f"{order[r % len(order)]} {r}" for r in range(n_regions)]


def _unique_phrases(count: int, first: tuple[str, ...], second: tuple[str, ...], rng: np.random.Generator) -> list[str]:
    """`count` distinct "first second" phrases drawn without replacement; numbered once the pairs run out."""
    total = len(first) * len(second)
    picks = rng.choice(total, size=min(count, total), replace=False)
    phrases = [f"{first[p // len(second)]} {second[p % len(second)]}" for p in picks]
    phrases += [f"{phrases[i % total]} {i // total + 1}" for i in range(total, count)]
    return phrases


def describe(
    indptr: np.ndarray, targets: np.ndarray, region: np.ndarray, rng: np.random.Generator
) -> tuple[list[str], list[str]]:
    """State texts (one per state) and action names (one per directed edge, CSR order), drawn from `rng`."""
    n = len(indptr) - 1
    themes = region_themes(int(region.max()) + 1, rng)
    places = [""] * n
    for r in range(len(themes)):
        members = np.flatnonzero(region == r)
        for state, phrase in zip(members, _unique_phrases(len(members), ADJECTIVES, LANDMARKS, rng)):
            places[state] = phrase
    texts = []
    for s in range(n):
        degree = int(indptr[s + 1] - indptr[s])
        exits = "One path leads out." if degree == 1 else f"Paths lead out in {degree} directions."
        texts.append(f"The {places[s]} of the {themes[region[s]]} district. {exits}")
    actions = []
    for s in range(n):
        dests = targets[indptr[s] : indptr[s + 1]]
        for dest, way in zip(dests, _unique_phrases(len(dests), MATERIALS, WAYS, rng)):
            where = "deeper into" if region[dest] == region[s] else "toward"
            actions.append(f"take the {way} {where} the {themes[region[dest]]} district")
    return texts, actions
