"""Paper 2's intrinsic-efficiency bounds over the study's episodes: agent episodes are growing transcripts, the
judge's two prompts are independent calls."""

import math

from tailmem.llm.cost import bounds
from tailmem.settings.llm import Price
from tailmem.studies.fsmem.report import transcripts_of

PRICE = Price(input=1.0, cached_input=0.1, output=4.0)


def test_judge_calls_are_separate_transcripts_and_agent_turns_one():
    # two independent 1,000-token judge prompts, nothing cached: caching could have saved nothing
    judge = [{"calls": [[1000, 0, 5], [1000, 0, 5]]}]
    b = bounds(transcripts_of("judge", judge), PRICE)
    assert math.isclose(b.perfect, b.no_cache) and math.isnan(b.share)
    # read as one transcript, the second prompt would look like a cached prefix: a wrong, finite share
    assert not math.isnan(bounds(transcripts_of("searcher", judge), PRICE).share)
    # a searcher whose second prompt extends the first: perfect pre-fills the 1,000 shared tokens once
    searcher = [{"calls": [[1000, 0, 10], [1500, 1000, 10]]}]
    b = bounds(transcripts_of("searcher", searcher), PRICE)
    assert b.perfect < b.measured < b.no_cache
    assert 0 < b.share < 1
