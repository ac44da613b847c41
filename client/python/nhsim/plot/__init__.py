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

from nhsim.plot.anahorysimoes2022 import (
    plot_seed000_fig2, plot_seed000_fig3, plot_seed000_fig5, plot_seed000_fig6,
)
from nhsim.plot.celledoni2019 import (
    convergence_errors, plot_seed001_fig2, plot_seed001_fig3, plot_seed001_fig4,
)
from nhsim.plot.gebhardt2020 import (
    second_quotient, plot_seed004_fig1, plot_seed004_fig4, plot_seed004_fig7, plot_seed004_fig2,
    plot_seed004_fig5, plot_seed004_fig8, plot_seed004_fig3, plot_seed004_fig6, plot_seed004_fig9,
    plot_seed004_fig10, plot_seed004_fig11, plot_seed004_fig12,
)
from nhsim.plot.general import (
    plot_energy_error, plot_energy_variance, plot_observable, plot_overview,
)
from nhsim.plot.kinon2023 import (
    plot_seed003_fig3, plot_seed003_fig4, plot_seed003_fig5, plot_seed003_fig6, plot_seed003_fig7,
    plot_seed003_fig8, plot_seed003_fig9, plot_seed003_fig10, plot_seed003_fig12,
    plot_seed003_fig13, plot_seed003_fig14, plot_seed003_fig15, plot_seed003_fig16,
    plot_seed003_fig17, plot_seed003_fig18, plot_seed003_fig19, plot_seed003_fig20,
    plot_seed003_fig21, plot_seed003_fig22, plot_seed003_fig23,
)
from nhsim.plot.kobilarov2010 import plot_seed002_fig2, plot_seed002_fig4
from nhsim.units import observable_unit, time_unit

__all__ = [
    "convergence_errors",
    "observable_unit",
    "plot_energy_error",
    "plot_energy_variance",
    "plot_observable",
    "plot_overview",
    "plot_seed000_fig2",
    "plot_seed000_fig3",
    "plot_seed000_fig5",
    "plot_seed000_fig6",
    "plot_seed001_fig2",
    "plot_seed001_fig3",
    "plot_seed001_fig4",
    "plot_seed002_fig2",
    "plot_seed002_fig4",
    "plot_seed003_fig10",
    "plot_seed003_fig12",
    "plot_seed003_fig13",
    "plot_seed003_fig14",
    "plot_seed003_fig15",
    "plot_seed003_fig16",
    "plot_seed003_fig17",
    "plot_seed003_fig18",
    "plot_seed003_fig19",
    "plot_seed003_fig20",
    "plot_seed003_fig21",
    "plot_seed003_fig22",
    "plot_seed003_fig23",
    "plot_seed003_fig3",
    "plot_seed003_fig4",
    "plot_seed003_fig5",
    "plot_seed003_fig6",
    "plot_seed003_fig7",
    "plot_seed003_fig8",
    "plot_seed003_fig9",
    "plot_seed004_fig1",
    "plot_seed004_fig10",
    "plot_seed004_fig11",
    "plot_seed004_fig12",
    "plot_seed004_fig2",
    "plot_seed004_fig3",
    "plot_seed004_fig4",
    "plot_seed004_fig5",
    "plot_seed004_fig6",
    "plot_seed004_fig7",
    "plot_seed004_fig8",
    "plot_seed004_fig9",
    "second_quotient",
    "time_unit",
]
