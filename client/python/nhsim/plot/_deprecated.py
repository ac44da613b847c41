"""The names of the paper figures before they were named by reference key, plot_seed00N_figM
(seed000 ... seed004: AnahorySimoes2022, Celledoni2019, Kobilarov2010, Kinon2023, Gebhardt2020),
deprecated and kept for one release: each warns with a DeprecationWarning that names its new
function, then calls it."""

import functools
import warnings

from nhsim.plot import anahorysimoes2022, celledoni2019, gebhardt2020, kinon2023, kobilarov2010

_OLD_PREFIXES = {"anahorysimoes2022": "seed000", "celledoni2019": "seed001",
                 "kobilarov2010": "seed002", "kinon2023": "seed003", "gebhardt2020": "seed004"}


def _alias(new):
    """The deprecated alias of the figure function new: plot_KEY_figM -> plot_seed00N_figM."""
    key = new.__name__.split("_")[1]
    old = new.__name__.replace(key, _OLD_PREFIXES[key], 1)

    @functools.wraps(new)
    def alias(*args, **kwargs):
        warnings.warn(f"nhsim.plot.{old} is deprecated: use nhsim.plot.{new.__name__}",
                      DeprecationWarning, stacklevel=2)
        return new(*args, **kwargs)

    alias.__name__ = alias.__qualname__ = old
    alias.__doc__ = f"Deprecated: calls {new.__name__} (the same arguments and result)."
    return alias


plot_seed000_fig2 = _alias(anahorysimoes2022.plot_anahorysimoes2022_fig2)
plot_seed000_fig3 = _alias(anahorysimoes2022.plot_anahorysimoes2022_fig3)
plot_seed000_fig5 = _alias(anahorysimoes2022.plot_anahorysimoes2022_fig5)
plot_seed000_fig6 = _alias(anahorysimoes2022.plot_anahorysimoes2022_fig6)
plot_seed001_fig2 = _alias(celledoni2019.plot_celledoni2019_fig2)
plot_seed001_fig3 = _alias(celledoni2019.plot_celledoni2019_fig3)
plot_seed001_fig4 = _alias(celledoni2019.plot_celledoni2019_fig4)
plot_seed002_fig2 = _alias(kobilarov2010.plot_kobilarov2010_fig2)
plot_seed002_fig4 = _alias(kobilarov2010.plot_kobilarov2010_fig4)
plot_seed003_fig3 = _alias(kinon2023.plot_kinon2023_fig3)
plot_seed003_fig4 = _alias(kinon2023.plot_kinon2023_fig4)
plot_seed003_fig5 = _alias(kinon2023.plot_kinon2023_fig5)
plot_seed003_fig6 = _alias(kinon2023.plot_kinon2023_fig6)
plot_seed003_fig7 = _alias(kinon2023.plot_kinon2023_fig7)
plot_seed003_fig8 = _alias(kinon2023.plot_kinon2023_fig8)
plot_seed003_fig9 = _alias(kinon2023.plot_kinon2023_fig9)
plot_seed003_fig10 = _alias(kinon2023.plot_kinon2023_fig10)
plot_seed003_fig12 = _alias(kinon2023.plot_kinon2023_fig12)
plot_seed003_fig13 = _alias(kinon2023.plot_kinon2023_fig13)
plot_seed003_fig14 = _alias(kinon2023.plot_kinon2023_fig14)
plot_seed003_fig15 = _alias(kinon2023.plot_kinon2023_fig15)
plot_seed003_fig16 = _alias(kinon2023.plot_kinon2023_fig16)
plot_seed003_fig17 = _alias(kinon2023.plot_kinon2023_fig17)
plot_seed003_fig18 = _alias(kinon2023.plot_kinon2023_fig18)
plot_seed003_fig19 = _alias(kinon2023.plot_kinon2023_fig19)
plot_seed003_fig20 = _alias(kinon2023.plot_kinon2023_fig20)
plot_seed003_fig21 = _alias(kinon2023.plot_kinon2023_fig21)
plot_seed003_fig22 = _alias(kinon2023.plot_kinon2023_fig22)
plot_seed003_fig23 = _alias(kinon2023.plot_kinon2023_fig23)
plot_seed004_fig1 = _alias(gebhardt2020.plot_gebhardt2020_fig1)
plot_seed004_fig2 = _alias(gebhardt2020.plot_gebhardt2020_fig2)
plot_seed004_fig3 = _alias(gebhardt2020.plot_gebhardt2020_fig3)
plot_seed004_fig4 = _alias(gebhardt2020.plot_gebhardt2020_fig4)
plot_seed004_fig5 = _alias(gebhardt2020.plot_gebhardt2020_fig5)
plot_seed004_fig6 = _alias(gebhardt2020.plot_gebhardt2020_fig6)
plot_seed004_fig7 = _alias(gebhardt2020.plot_gebhardt2020_fig7)
plot_seed004_fig8 = _alias(gebhardt2020.plot_gebhardt2020_fig8)
plot_seed004_fig9 = _alias(gebhardt2020.plot_gebhardt2020_fig9)
plot_seed004_fig10 = _alias(gebhardt2020.plot_gebhardt2020_fig10)
plot_seed004_fig11 = _alias(gebhardt2020.plot_gebhardt2020_fig11)
plot_seed004_fig12 = _alias(gebhardt2020.plot_gebhardt2020_fig12)

__all__ = [
    "plot_seed000_fig2",
    "plot_seed000_fig3",
    "plot_seed000_fig5",
    "plot_seed000_fig6",
    "plot_seed001_fig2",
    "plot_seed001_fig3",
    "plot_seed001_fig4",
    "plot_seed002_fig2",
    "plot_seed002_fig4",
    "plot_seed003_fig3",
    "plot_seed003_fig4",
    "plot_seed003_fig5",
    "plot_seed003_fig6",
    "plot_seed003_fig7",
    "plot_seed003_fig8",
    "plot_seed003_fig9",
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
    "plot_seed004_fig1",
    "plot_seed004_fig2",
    "plot_seed004_fig3",
    "plot_seed004_fig4",
    "plot_seed004_fig5",
    "plot_seed004_fig6",
    "plot_seed004_fig7",
    "plot_seed004_fig8",
    "plot_seed004_fig9",
    "plot_seed004_fig10",
    "plot_seed004_fig11",
    "plot_seed004_fig12",
]
