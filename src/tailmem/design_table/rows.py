"""Which studies write rows of the design check's table, in the table's order, and where."""

from tailmem import paths

# The studies with a design-check row, in the table's order: the controller's claim pairs, then the others'
STUDIES = ("controller", "fsmem", "longmemeval", "alfworld", "random_walk")


def rows_files(results: str) -> list[str]:
    """Each study's rows file (`paths.DESIGN_ROWS`), in `STUDIES` order: the design table's inputs."""
    return [paths.DESIGN_ROWS.format(results=results, study=s) for s in STUDIES]
