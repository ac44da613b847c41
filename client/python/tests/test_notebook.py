"""docs/notebooks executed headless (nbclient, an IPython kernel of this Python): variance.ipynb
with nhsim.run and no server runs, shows the run's progress and a figure, and its checks hold;
live.ipynb follows a job on a local_server with a LivePlot that updates more than once and ends
on the finished result. The kernel finds the nhsim binaries through $NHSIM and $NHSIMD (set by
ctest)."""

import os
import pathlib
import re
import subprocess
import sys

import pytest

try:
    import nbclient
    import nbformat
    import ipykernel  # noqa: F401  (the kernel, installed below with python -m ipykernel)
except ImportError as error:  # scripts/install-deps installs python3-nbclient, -ipykernel
    raise ImportError(f"test_notebook needs nbclient and ipykernel (scripts/install-deps): "
                      f"{error}") from error

from conftest import EXAMPLES

NOTEBOOKS = pathlib.Path(__file__).resolve().parents[3] / "docs" / "notebooks"
NOTEBOOK = NOTEBOOKS / "variance.ipynb"
LIVE_NOTEBOOK = NOTEBOOKS / "live.ipynb"


def _text(output):
    """The text of one cell output: a stream's, or a display's text/plain."""
    if output.get("output_type") == "stream":
        return output.get("text", "")
    return output.get("data", {}).get("text/plain", "")


def _execute(path, directory):
    """The notebook at `path` after a headless run in `directory`, and the names of the files
    there afterwards."""
    # The notebook's kernel "nhsim", installed as docs/python.md says (there with --user), for
    # the Python that runs the tests: the venv with the installed nhsim.
    subprocess.run([sys.executable, "-m", "ipykernel", "install", "--prefix", str(directory),
                    "--name", "nhsim"], check=True, capture_output=True)
    notebook = nbformat.read(path, as_version=4)
    env = dict(os.environ, NHSIM_EXAMPLES=str(EXAMPLES),
               JUPYTER_PATH=str(directory / "share" / "jupyter"), PYTHONDONTWRITEBYTECODE="1")
    env.pop("MPLBACKEND", None)  # Agg would hide the figure: the kernel's inline backend
    old = dict(os.environ)
    os.environ.update(env)
    os.environ.pop("MPLBACKEND", None)
    try:
        client = nbclient.NotebookClient(notebook, timeout=300,  # the notebook's kernel
                                         resources={"metadata": {"path": str(directory)}})
        client.execute()
    finally:
        os.environ.clear()
        os.environ.update(old)
    return notebook, {p.name for p in directory.iterdir()}


def _errors(notebook):
    return [o for c in notebook.cells if c.cell_type == "code"
            for o in c.get("outputs", []) if o.get("output_type") == "error"]


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    """variance.ipynb after a headless run, in a scratch directory (it must write nothing)."""
    return _execute(NOTEBOOK, tmp_path_factory.mktemp("notebook"))


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    """live.ipynb after a headless run (it starts its own nhsimd on a loopback port)."""
    return _execute(LIVE_NOTEBOOK, tmp_path_factory.mktemp("live"))


def test_the_notebook_runs_with_its_kernel(executed):
    notebook, files = executed
    assert files == {"share"}, f"the notebook wrote files: {files}"
    assert notebook.metadata.kernelspec.name == "nhsim"
    assert not _errors(notebook), _errors(notebook)


def test_the_progress_shows_in_the_notebook(executed):
    notebook, _ = executed
    run = next(c for c in notebook.cells if "nhsim.run(spec)" in c.source)
    text = "".join(_text(o) for o in run.outputs)
    # tqdm.auto's bar (a widget with ipywidgets, else text on the cell's stderr) and the final
    # line on stdout, which stays in the saved notebook either way: 32 trajectories x 4
    # integrators.
    assert "run: 128/128 trajectories (100 %), SUCCEEDED" in text, text
    streams = [o for o in run.outputs if o.get("output_type") == "stream"]
    assert any(o["name"] == "stdout" for o in streams), run.outputs


def test_the_notebook_draws_and_checks(executed):
    notebook, _ = executed
    images = [o for c in notebook.cells for o in c.get("outputs", [])
              if "image/png" in o.get("data", {})]
    assert len(images) == 1, "the summary plot is not shown inline"
    printed = "".join(_text(o) for c in notebook.cells for o in c.get("outputs", []))
    assert "gonzalez max|H - H0| = " in printed and "si_dla   max|H - H0| = " in printed



def test_the_live_plot_updates_and_ends_on_the_result(live):
    notebook, files = live
    assert files == {"share"}, f"the notebook wrote files: {files}"
    assert not _errors(notebook), _errors(notebook)
    printed = "".join(_text(o) for c in notebook.cells for o in c.get("outputs", []))
    counts = re.search(r"updates: (\d+) trajectories: \[([\d, ]+)\]", printed)
    assert counts, printed
    trajectories = [int(n) for n in counts.group(2).split(",")]
    assert int(counts.group(1)) == len(trajectories) >= 2, printed
    assert trajectories == sorted(set(trajectories)) and trajectories[-1] == 4000, trajectories
    assert "the last update is the result: True" in printed, printed
    assert "the earlier ones are partial: True" in printed, printed
    # One figure, updated in place (display_id): the saved notebook holds its last state.
    images = [o for c in notebook.cells for o in c.get("outputs", [])
              if "image/png" in o.get("data", {})]
    assert len(images) == 1, [o.get("output_type") for c in notebook.cells
                              for o in c.get("outputs", [])]
