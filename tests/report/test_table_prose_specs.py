"""The random-walk, controller-study and LongMemEval tables as declarative specs (report/data/random_walk.yaml,
control.yaml, longmemeval.yaml; issue 30 item 5): every spec belongs to a table the stage writes, and every template
field of its title and note, and of the shared sentences, is filled by the code that writes it."""

import re
import string

import pytest
import yaml

from tailmem import outputs
from tailmem.registry import STAGES
from tailmem.report import data_files, table_spec
from tailmem.report.audits import EXPLAIN
from tailmem.report.data_files import ReportDataError
from tailmem.settings.stage_settings import for_stage
from tailmem.stats.group import shipped
from tailmem.studies.controller import report as control_report
from tailmem.studies.controller import tables as ct
from tailmem.studies.longmemeval import report as longmemeval
from tailmem.studies.longmemeval import tables as lt
from tailmem.studies.random_walk import report as tables
from tailmem.studies.random_walk import tables as rw
from tailmem.workflow import compose_config

S = shipped(resamples=1000, seed=0)
STEMS = {  # data file -> the stems its specs are for (a spec for anything else is a table nobody writes)
    rw.FILE: {*outputs.RANDOM_WALK_TABLES, rw.FITS},
    ct.FILE: {*outputs.CONTROL_TABLES, f"{outputs.FIG6_TAU}_data", f"{outputs.FIG7_REDUCTION}_data"},
    lt.FILE: set(outputs.LONGMEMEVAL_TABLES),
}
LEFT = re.compile(r"[{}]")  # a brace left in a filled text: a field nobody filled, or a template typo


def _fields(template: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(template) if f}


def settings_of(stage: str, cfg):
    """What `stage` receives when it runs with `cfg`: the notes read its settings."""
    return for_stage(cfg, stage, STAGES[stage].groups)


@pytest.fixture(scope="module")
def cfg():
    return compose_config("smoke")


@pytest.fixture(scope="module")
def filled(cfg) -> dict[str, dict[str, tuple[str, str]]]:
    """data file -> stem -> (title, note), as each stage fills them at smoke scale."""
    rw_notes = tables.notes(settings_of("tables", cfg), S)
    fits = rw.SPECS[rw.FITS]
    rw_notes[rw.FITS] = (fits.title_text(), fits.note_text(explain=EXPLAIN))  # as tables.table7_parts fills it
    common = longmemeval.report_note(cfg, "programmatic-answerer")
    measured = lt.reduction_note(0.05, S)
    lme_titles = lt.titles(float(cfg.longmemeval.primary_ratio))
    return {
        rw.FILE: rw_notes,
        ct.FILE: control_report.notes(
            settings_of("control_report", cfg), S, "programmatic-memory", {"graph_memory": "160", "ctmc": "160"}
        ),
        lt.FILE: {s: (lme_titles[s], lt.note(s, common, measured, "judges ran")) for s in lt.SPECS},
    }


@pytest.mark.parametrize("file", sorted(STEMS))
def test_every_spec_is_a_table_the_stage_writes(file):
    raw = yaml.safe_load(data_files.path(file).read_text())["tables"]  # PyYAML's reading, not ours
    assert set(raw) == STEMS[file] == set(table_spec.specs(file))
    assert all(spec.columns and spec.source for spec in table_spec.specs(file).values())


@pytest.mark.parametrize("file", sorted(STEMS))
def test_every_template_field_is_filled(file, filled):
    specs = table_spec.specs(file)
    assert set(filled[file]) == set(specs)
    named = set().union(*(_fields(t) for s in specs.values() for t in (s.title, s.note)))
    assert named, file  # the check below is not vacuous
    for stem, (title, note) in filled[file].items():
        assert title.strip() and note.strip(), stem
        assert not LEFT.search(title) and not LEFT.search(note), (stem, title, note)


def test_shared_sentences_are_filled_in_every_branch(cfg):
    """The sentences a branch picks (a model policy, a model predictor, cut turns) fill their fields too."""
    from omegaconf import OmegaConf

    llm = OmegaConf.merge(cfg, {"scale": {"control": {"policy": "llm"}}})
    cut = OmegaConf.merge(cfg, {"longmemeval": {"turn_words": 40}})
    texts = [
        tables.tail_shape_note(settings_of("tables", llm)),
        ct.table4_note("gpt-4o-mini"),
        longmemeval.report_note(cut, "a"),
        tables.produced_by(settings_of("tables", cfg), None),
    ]
    assert "playing the policy role" in texts[0] and "first 40 words" in texts[2]
    assert not any(LEFT.search(t) for t in texts), texts


def test_the_notes_still_say_what_the_tables_show(filled):
    """A few sentences each reader relies on, now read from the data files."""
    rw_notes, ct_notes, lt_notes = filled[rw.FILE], filled[ct.FILE], filled[lt.FILE]
    assert rw_notes[rw.FITS][0] == "Table 7, continued: scaling with graph size"
    assert EXPLAIN["slope_r2"] in rw_notes[rw.FITS][1]
    assert ct_notes[outputs.TABLE3_POLICY][0] == "Table 3: tail audit per topology under the `semantic` policy"
    assert ct.table4_note("programmatic") in ct_notes[outputs.TABLE4_BASELINES][1]
    assert "Graph Memory 160 tokens, CTMC 160 tokens" in ct_notes[outputs.TABLE5_GRAPH_VS_CTMC][1]
    assert ct_notes[f"{outputs.FIG6_TAU}_data"][1].startswith("Scale `smoke`: matched replay")
    assert lt_notes[outputs.CLAIMS_LONGMEMEVAL][1].endswith("programmatic. judges ran")
    assert "judge_unparsed" in lt_notes[outputs.LONGMEMEVAL_BY_TYPE][0]
    assert f"{lt.PAPER_TOKEN_REDUCTION_PCT}% fewer" in lt_notes[outputs.LONGMEMEVAL_CTMC_VS_GRAPH][0]


def test_a_shared_sentence_naming_a_field_nobody_gives_fails_naming_the_file():
    with pytest.raises(ReportDataError, match=r"random_walk.yaml: words.not_comparable names \{agents\}"):
        table_spec.text(rw.FILE, "not_comparable")
    assert table_spec.text(rw.FILE, "explain.gini") == EXPLAIN["gini"]  # a dotted key reaches into a mapping
