"""A figure that follows a running job: the energy-error variance redrawn from the job's
statistics so far each time Job.watch passes them on.

    live = nhsim.plot.LivePlot()
    job.watch(callback=live)   # in a notebook the figure updates in place

Outside a notebook the figure is redrawn in memory: ``live.figure.savefig(...)`` any time.
"""

import io

import numpy as np

from nhsim.plot.general import plot_energy_variance
from nhsim.progress import in_notebook
from nhsim.results import as_proto, choice_labels


class LivePlot:
    """Job.watch's callback that draws plot_energy_variance(result, band=True) of each result
    it is given into one figure.

    Args:
        observable: the series whose variance is drawn (default energy_error).
        fit: draw the growth model a + b t, as plot_energy_variance.
        figsize: inches, of the figure made here (matplotlib.figure.Figure, without pyplot, so
            that a notebook shows it once, where it updates).

    Attributes:
        figure: the matplotlib Figure.
        drawn: one dict per result drawn, in order: "n_trajectories", "partial" and
            "variance", {choice label: the variance drawn (numpy array, one value per sample
            time)}: what the figure showed, for checks and logs.
    """

    def __init__(self, observable="energy_error", fit=True, figsize=(7, 4.5)):
        from matplotlib.figure import Figure  # pylint: disable=import-outside-toplevel
        self.observable = observable
        self.fit = fit
        self.figure = Figure(figsize=figsize, layout="constrained")
        self.drawn = []
        self._display = None

    def __call__(self, job, result):  # pylint: disable=unused-argument
        proto = as_proto(result)
        self.figure.clear()
        plot_energy_variance(proto, ax=self.figure.add_subplot(), observable=self.observable,
                             fit=self.fit, band=True)
        variances = {}
        for label, integrator in zip(choice_labels(proto), proto.integrators):
            for series in integrator.observables:
                if series.observable == self.observable:
                    variances[label] = np.asarray(series.variance, dtype=float)
        self.drawn.append({"n_trajectories": proto.n_trajectories, "partial": proto.partial,
                           "variance": variances})
        self._show()

    def _show(self):
        if not in_notebook():
            self.figure.canvas.draw_idle()
            return
        # A PNG of its own: a Figure made without pyplot has no inline formatter.
        from IPython.display import Image, display  # pylint: disable=import-outside-toplevel
        png = io.BytesIO()
        self.figure.savefig(png, format="png", dpi=100)
        image = Image(data=png.getvalue(), format="png")
        if self._display is None:
            self._display = display(image, display_id=True)
        else:
            self._display.update(image)
