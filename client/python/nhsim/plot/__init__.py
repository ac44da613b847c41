"""matplotlib figures of ensemble results: the general plots (nhsim.plot.general) and the
figures of the papers nhsim reproduces, one module per paper named by its reference key
(docs/references.md): nhsim.plot.anahorysimoes2022, .celledoni2019, .kobilarov2010, .kinon2023
and .gebhardt2020. Every function is also here, e.g. ``nhsim.plot.plot_kinon2023_fig21``.

Each function takes a result (nhsim.Result, an nhsim.v1.EnsembleResult or the path of a result
file) and returns the Axes or the Figure it drew. Pass ``ax`` to draw into an existing Axes;
otherwise a new figure is made with pyplot (shown inline in a notebook). Axes are labelled with
units where the system's units are known (nhsim.units: SI for the mechanical systems,
dimensionless for the model problems).

Headless use (scripts, tests): select the Agg backend first, e.g. MPLBACKEND=Agg or
``matplotlib.use("Agg")``; ``python3 -m nhsim plot`` does.
"""

# The deprecated names of the paper figures (plot_seed00N_figM), for one release.
from nhsim.plot import _deprecated
from nhsim.plot._deprecated import *  # noqa: F401,F403  pylint: disable=wildcard-import
from nhsim.plot.anahorysimoes2022 import (
    plot_anahorysimoes2022_fig2, plot_anahorysimoes2022_fig3, plot_anahorysimoes2022_fig5,
    plot_anahorysimoes2022_fig6,
)
from nhsim.plot.celledoni2019 import (
    convergence_errors, plot_celledoni2019_fig2, plot_celledoni2019_fig3, plot_celledoni2019_fig4,
)
from nhsim.plot.gebhardt2020 import (
    second_quotient, plot_gebhardt2020_fig1, plot_gebhardt2020_fig2, plot_gebhardt2020_fig3,
    plot_gebhardt2020_fig4, plot_gebhardt2020_fig5, plot_gebhardt2020_fig6, plot_gebhardt2020_fig7,
    plot_gebhardt2020_fig8, plot_gebhardt2020_fig9, plot_gebhardt2020_fig10,
    plot_gebhardt2020_fig11, plot_gebhardt2020_fig12,
)
from nhsim.plot.general import (
    plot_energy_error, plot_energy_variance, plot_observable, plot_overview,
)
from nhsim.plot.kinon2023 import (
    plot_kinon2023_fig3, plot_kinon2023_fig4, plot_kinon2023_fig5, plot_kinon2023_fig6,
    plot_kinon2023_fig7, plot_kinon2023_fig8, plot_kinon2023_fig9, plot_kinon2023_fig10,
    plot_kinon2023_fig12, plot_kinon2023_fig13, plot_kinon2023_fig14, plot_kinon2023_fig15,
    plot_kinon2023_fig16, plot_kinon2023_fig17, plot_kinon2023_fig18, plot_kinon2023_fig19,
    plot_kinon2023_fig20, plot_kinon2023_fig21, plot_kinon2023_fig22, plot_kinon2023_fig23,
)
from nhsim.plot.kobilarov2010 import plot_kobilarov2010_fig2, plot_kobilarov2010_fig4
from nhsim.plot.live import LivePlot
from nhsim.units import observable_unit, time_unit

__all__ = [
    "LivePlot",
    "convergence_errors",
    "observable_unit",
    "plot_anahorysimoes2022_fig2",
    "plot_anahorysimoes2022_fig3",
    "plot_anahorysimoes2022_fig5",
    "plot_anahorysimoes2022_fig6",
    "plot_celledoni2019_fig2",
    "plot_celledoni2019_fig3",
    "plot_celledoni2019_fig4",
    "plot_energy_error",
    "plot_energy_variance",
    "plot_gebhardt2020_fig1",
    "plot_gebhardt2020_fig10",
    "plot_gebhardt2020_fig11",
    "plot_gebhardt2020_fig12",
    "plot_gebhardt2020_fig2",
    "plot_gebhardt2020_fig3",
    "plot_gebhardt2020_fig4",
    "plot_gebhardt2020_fig5",
    "plot_gebhardt2020_fig6",
    "plot_gebhardt2020_fig7",
    "plot_gebhardt2020_fig8",
    "plot_gebhardt2020_fig9",
    "plot_kinon2023_fig10",
    "plot_kinon2023_fig12",
    "plot_kinon2023_fig13",
    "plot_kinon2023_fig14",
    "plot_kinon2023_fig15",
    "plot_kinon2023_fig16",
    "plot_kinon2023_fig17",
    "plot_kinon2023_fig18",
    "plot_kinon2023_fig19",
    "plot_kinon2023_fig20",
    "plot_kinon2023_fig21",
    "plot_kinon2023_fig22",
    "plot_kinon2023_fig23",
    "plot_kinon2023_fig3",
    "plot_kinon2023_fig4",
    "plot_kinon2023_fig5",
    "plot_kinon2023_fig6",
    "plot_kinon2023_fig7",
    "plot_kinon2023_fig8",
    "plot_kinon2023_fig9",
    "plot_kobilarov2010_fig2",
    "plot_kobilarov2010_fig4",
    "plot_observable",
    "plot_overview",
    "second_quotient",
    "time_unit",
]
__all__ += _deprecated.__all__
