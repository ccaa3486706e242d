"""A controller job's predictions in flight are capped in one place (tailmem.llm.parallel.in_flight).

Finding: the concurrency cap's min was taken twice, at planning time (`in_flight`, the rule's `llm_slots`) and again
in the job (`workers_for`: the same min, then min with the granted slots, then min with the units). Now
`in_flight(settings, *limits)` is the one min: the rule declares it with no limits, the job takes it with its units
and its grant, so the predictor's workers never exceed the slots its rule asked for.
"""

from types import SimpleNamespace

import pytest

from tailmem.control.predict import ModelPredictor
from tailmem.llm import parallel
from tailmem.llm.parallel import SLOTS_ENV, in_flight


def predictor(concurrency: int, server_slots: int | None) -> ModelPredictor:
    settings = SimpleNamespace(concurrency=concurrency, server_slots=server_slots)
    return ModelPredictor(SimpleNamespace(backend="openai", model="m", settings=settings))


@pytest.mark.parametrize("concurrency, server_slots", [(8, None), (8, 3), (2, 4)])
def test_the_rule_s_slots_and_the_job_s_workers_are_one_cap(monkeypatch, concurrency, server_slots):
    settings = predictor(concurrency, server_slots).client.settings
    declared = in_flight(settings)  # what the control rule's `llm_slots` asks for
    assert declared == min(concurrency, server_slots or concurrency)
    monkeypatch.setenv(SLOTS_ENV, str(declared))  # Snakemake grants it
    assert predictor(concurrency, server_slots).workers(100) == declared
    assert predictor(concurrency, server_slots).workers(2) == min(2, declared)  # fewer planned calls than slots
    monkeypatch.setenv(SLOTS_ENV, "1")  # a run-wide cap granted the job one slot
    assert predictor(concurrency, server_slots).workers(100) == 1
    assert in_flight(settings, 100, None) == declared and in_flight(settings, 100, 1) == 1


def test_the_job_takes_the_cap_through_the_same_function(monkeypatch):
    taken = []
    monkeypatch.setattr(parallel, "in_flight", lambda settings, *limits: taken.append(limits) or 5)
    monkeypatch.setenv(SLOTS_ENV, "7")
    assert predictor(8, None).workers(40) == 5
    assert taken == [(40, 7)]  # the units and the grant, handed to the one min
