"""The progress display of Job.watch: a tqdm bar where one can be drawn, plain text elsewhere.

Where the output goes decides the front end:

* in a Jupyter kernel, ``tqdm.auto``: a widget bar with ipywidgets, else tqdm's text bar on
  the cell's stderr; then one final line on stdout, which stays in the saved notebook;
* on a terminal (stderr is a tty), tqdm's text bar on stderr;
* anywhere else (stderr redirected to a file or a pipe, a batch job, a CI log), plain lines on
  stderr, ``job 1a2b3c4d: 16/64 trajectories (25 %), RUNNING``, at most one every `interval`
  seconds, and always the first and the last.

Where the server counts trajectory-steps (Job.steps_done), the bar and the percentage follow
them, so they advance within long trajectories. The counters shown never go backwards: a late
or reordered update with less done (as a cancel may send) does not lower them.
"""

import sys
import time
import warnings

#: Seconds between two plain-text progress lines (the first and the last are always written).
TEXT_INTERVAL = 5.0


def mode_of(progress):
    """The Progress mode of a ``progress`` argument (Job.watch, nhsim.run): True -> "auto",
    False or None -> "none", a mode name as it is."""
    if progress is True:
        return "auto"
    return progress or "none"


def in_notebook():
    """True inside a Jupyter (IPython) kernel, where a cell's output is a notebook's."""
    shell = getattr(sys.modules.get("IPython"), "get_ipython", lambda: None)()
    return shell is not None and "IPKernelApp" in getattr(shell, "config", {})


def _auto_tqdm():
    """tqdm.auto's class, without its warning when ipywidgets is missing (it falls back to the
    text bar, which a notebook shows as the cell's stderr)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from tqdm.auto import tqdm  # pylint: disable=import-outside-toplevel
    return tqdm


class Progress:
    """Shows a job's progress; a context manager. update() it with each nhsim.v1.Job message.

    Args:
        label: the text before the counter, e.g. "job 1a2b3c4d".
        mode: "bar" (tqdm.auto), "text" (plain lines), "none", or "auto" (see the module).
        file: where "text" lines (and a terminal bar) go; None: sys.stderr at each write.
        interval: seconds between two "text" lines.
    """

    def __init__(self, label, mode="auto", file=None, interval=TEXT_INTERVAL):
        self.label = label
        self._file = file
        self.interval = interval
        self.notebook = in_notebook()
        if mode == "auto":
            stream = file or sys.stderr
            tty = getattr(stream, "isatty", lambda: False)()
            mode = "bar" if self.notebook or tty else "text"
        if mode not in ("bar", "text", "none"):
            raise ValueError(f"progress mode: expected auto, bar, text or none, got {mode!r}")
        self.mode = mode
        self.done = 0  # the highest count seen: what is shown
        self.total = 0
        self.steps_done = 0  # likewise, in trajectory-steps (0 of 0: not counted)
        self.steps_total = 0
        self.state = ""
        self._bar = None
        self._last_line = None  # (time, text) of the last "text" line
        self._started = time.monotonic()

    @property
    def file(self):
        """The stream of the text lines (sys.stderr unless given)."""
        return self._file or sys.stderr

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def line(self):
        """The progress as text: ``job 1a2b3c4d: 16/64 trajectories (25 %), RUNNING``, the
        percentage of the trajectory-steps where they are counted."""
        done, total = self._work()
        percent = f" ({100 * done // total} %)" if total else ""
        return f"{self.label}: {self.done}/{self.total} trajectories{percent}, {self.state}"

    def _work(self):
        """What the bar and the percentage count: (done, total) steps, else trajectories."""
        if self.steps_total:
            return self.steps_done, self.steps_total
        return self.done, self.total

    def update(self, done, total, state, steps_done=0, steps_total=0):
        """Shows `done` of `total` trajectory runs (ints) in `state` (str, e.g. "RUNNING"), and
        `steps_done` of `steps_total` trajectory-steps where the server counts them (0 of 0:
        not counted). Counts below what was shown already are ignored."""
        self.done = max(self.done, int(done))
        self.total = int(total) or self.total
        self.steps_done = max(self.steps_done, int(steps_done))
        self.steps_total = int(steps_total) or self.steps_total
        changed = state != self.state
        self.state = state
        if self.mode == "bar":
            work_done, work_total = self._work()
            if self._bar is None:
                tqdm = _auto_tqdm()
                self._bar = tqdm(total=work_total or None,
                                 unit="step" if self.steps_total else "traj",
                                 unit_scale=bool(self.steps_total), desc=self.label,
                                 file=None if self.notebook else self.file,
                                 dynamic_ncols=True)
            if self._bar.total != (work_total or None):
                self._bar.total = work_total or None
            self._bar.n = work_done
            postfix = f"{self.done}/{self.total} traj, " if self.steps_total else ""
            self._bar.set_postfix_str(postfix + self.state)  # refreshes the bar
        elif self.mode == "text":
            now = time.monotonic()
            text = self.line()
            if self._last_line is None or (
                    text != self._last_line[1] and (changed or now - self._last_line[0]
                                                    >= self.interval)):
                self._write(text)
                self._last_line = (now, text)

    def _write(self, text):
        print(text, file=self.file, flush=True)

    def close(self):
        """Ends the display: closes the bar, writes the last text line if it was not written."""
        if self.mode == "bar" and self._bar is not None:
            self._bar.close()
            self._bar = None
            if self.notebook:  # the widget's state is not part of a saved notebook; this is
                seconds = time.monotonic() - self._started
                print(f"{self.line()} ({seconds:.1f} s)", flush=True)
        elif self.mode == "text" and self.state:
            text = self.line()
            if self._last_line is None or self._last_line[1] != text:
                self._write(text)
                self._last_line = (time.monotonic(), text)
