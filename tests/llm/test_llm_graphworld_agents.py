"""The programmatic graph-world policy: deterministic, goal-directed, grounded only in what its prompt holds."""

from tailmem.agents.graphworld import choose_action, format_transition, parse_transitions

HERE = "The mossy courtyard of the harbor district. Paths lead out in 2 directions."
MILL = "The old mill of the forest district. One path leads out."
GATE = "The iron gate of the harbor district. One path leads out."
ACTIONS = [
    "take the stone stairway toward the forest district",
    "take the narrow alley deeper into the harbor district",
]


def test_policy_follows_the_action_name_toward_the_goal():
    assert choose_action(HERE, ACTIONS, "Reach the old mill of the forest district.", []) == 0
    assert choose_action(HERE, ACTIONS, "Reach the iron gate of the harbor district.", []) == 1


def test_policy_uses_a_remembered_transition_to_the_goal():
    memories = [format_transition(HERE, ACTIONS[1], MILL)]  # memory overrides the names' hint
    assert choose_action(HERE, ACTIONS, MILL, memories) == 1


def test_policy_is_deterministic_and_valid():
    picks = {choose_action(HERE, ACTIONS, "anywhere", []) for _ in range(5)}
    assert len(picks) == 1 and picks <= {0, 1}


def test_free_form_memory_is_read_with_candidate_states():
    text = f"Earlier: {HERE} Then I took the stone stairway toward the forest district and arrived at {MILL}"
    (t,) = parse_transitions([text], [HERE, MILL, GATE])
    assert t.state == HERE and t.next_state == MILL and "stone stairway" in t.action
