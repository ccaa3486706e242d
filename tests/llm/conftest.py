import pytest

from llm_testkit import FakeServer


@pytest.fixture
def server():
    with FakeServer() as s:
        yield s
