"""The figures of [Kinon2023] (docs/experiments-seed003.md): the GGL integrator on the
gyroscopic top and the double four-bar linkage."""

import math

import numpy as np

from nhsim.plot._common import _new_axes, _positive
from nhsim.plot._paper import (_color, _conserved, _finish, _mean, _picked, _require,
                               _sample_step, _single, _style)
from nhsim.results import as_proto
from nhsim.units import axis_label, time_unit


def _ggl_series(result, system, figure, integrator):
    proto = as_proto(result)
    _require(proto, system, figure)
    _single(proto, figure)
    return proto, _picked(proto, integrator)


# Windows of Figs. 18-21's envelopes: about one per two pixels of a 5.6-inch panel at 100 dpi.
_WINDOWS = 250


def _envelope(t, values, windows):
    """|values| in at most `windows` windows of consecutive samples, each of 1, 2 or 5 times
    10^k samples: (the window's duration, each window's middle time, its max, its median), NaN
    where a window has no finite value."""
    size = max(1, math.ceil(len(t) / windows))
    size = min(n * 10 ** math.floor(math.log10(size)) for n in (1, 2, 5, 10)
               if n * 10 ** math.floor(math.log10(size)) >= size)  # 1, 2 or 5 times 10^k
    count = len(t) // size * size
    if count < len(t):  # the last, shorter window: pad it with NaN
        count += size
    pad = count - len(t)
    blocks = np.concatenate([np.abs(values), np.full(pad, np.nan)]).reshape(-1, size)
    times = np.concatenate([t, np.full(pad, np.nan)]).reshape(-1, size)
    finite = np.isfinite(blocks).any(axis=1)
    top, middle = np.full(len(blocks), np.nan), np.full(len(blocks), np.nan)
    top[finite] = np.nanmax(blocks[finite], axis=1)
    middle[finite] = np.nanmedian(blocks[finite], axis=1)
    duration = t[min(size, len(t) - 1)] - t[0] if len(t) > 1 else math.nan
    return duration, np.nanmean(times, axis=1), top, middle


def _lines(result, system, figure, integrator, ax, observable, ylabel, title, log=False,
           conserved=None, envelope=None):
    """Draws one observable of each picked choice of a single-trajectory result against t.
    log: |values| on a log scale (thin lines: round-off is noisy). conserved: (symbol, unit)
    of a quantity that may be constant, for _conserved. envelope: with log, a number of
    windows: a series with over four samples per window is drawn as the max of |values| in
    each window (every peak kept) and, thin and pale, the median (the round-off level),
    instead of a line through every sample that fills the panel."""
    _, picked = _ggl_series(result, system, figure, integrator)
    ax = _new_axes(ax)
    drawn = []
    enveloped = False
    for k, label, choice in picked:
        t, values = _mean(choice, observable)
        drawn.append((label, values))
        if log and envelope and len(t) > 4 * envelope:
            enveloped = True
            duration, middle, top, median = _envelope(t, values, envelope)
            style = _style(label, choice, k, None, linewidth=0.9)
            style["label"] = f"{label}: max over {duration:.2g} {time_unit(system) or ''}".rstrip()
            line = ax.plot(middle, _positive(top), **style)[0]
            ax.plot(middle, _positive(median), color=line.get_color(), linewidth=0.6,
                    alpha=0.45, label=f"{label}: median")
            continue
        if log:
            values = _positive(np.abs(values))
        ax.plot(t, values, **_style(label, choice, k, None, linewidth=0.5 if log else 1.0))
    ax.set_xlabel(axis_label("t", "s"))
    ax.set_ylabel(ylabel)
    if conserved is not None:
        _conserved(ax, drawn, *conserved)
    if not enveloped:
        return _finish(ax, title, log=log)
    _finish(ax, title, legend=False, log=log)
    low, high = ax.get_ylim()  # a decade and more of room above the peaks for the legend
    ax.set_ylim(low, high * (high / low) ** 0.18)
    ax.legend(fontsize="small", loc="upper center", ncols=2)
    return ax


def _increments(t, values):
    """The differences of consecutive samples, at the later sample's time."""
    return t[1:], np.diff(values)


def _energies(result, system, figure, integrator, ax, title):
    """T, V and H = T + V of the picked choices against t (colours C0, C1, C2)."""
    _, picked = _ggl_series(result, system, figure, integrator)
    ax = _new_axes(ax)
    for k, label, choice in picked:
        t, kinetic = _mean(choice, "kinetic_energy")
        potential = _mean(choice, "potential_energy")[1]
        suffix = f", {label}" if len(picked) > 1 else ""
        for values, name, color in ((kinetic, "T", "C0"), (potential, "V", "C1"),
                                    (kinetic + potential, "H = T + V", "C2")):
            ax.plot(t, values, color=color, linewidth=1.0, label=name + suffix,
                    linestyle=["-", "--", ":"][k % 3])
    ax.set_xlabel(axis_label("t", "s"))
    ax.set_ylabel("energy [J]")
    low, high = ax.get_ylim()
    ax.set_ylim(low, high + 0.2 * (high - low))  # room for the legend
    _finish(ax, title, legend=False)
    ax.legend(fontsize="small", loc="upper center", ncols=3)
    return ax


def _h_increments(result, system, figure, integrator, ax, title, observable="energy_error",
                  ylabel=r"$H(t_{n+1}) - H(t_n)$ [J]"):
    """The differences of an observable between consecutive samples of the picked choices."""
    _, picked = _ggl_series(result, system, figure, integrator)
    ax = _new_axes(ax)
    for k, label, choice in picked:
        t, values = _increments(*_mean(choice, observable))
        ax.plot(t, values, **_style(label, choice, k, None, linewidth=0.6))
        step = _sample_step(choice) / choice.choice.h
    ax.set_xlabel(axis_label("t", "s"))
    ax.set_ylabel(ylabel)
    per = "per step" if round(step) == 1 else f"per {step:g} steps"
    return _finish(ax, f"{title} ({per})")


def plot_kinon2023_fig3(result, ax=None, integrator="ggl"):
    """[Kinon2023] Fig. 3 (§5.1): the top's kinetic energy T, potential energy V and H = T + V
    (examples/top_precession.json, a single trajectory).

    Args:
        result: a single-trajectory gyroscopic_top result with kinetic_energy and
            potential_energy.
        ax: the Axes to draw into; None = a new figure.
        integrator: the integrator id(s) drawn (None = every choice).

    Returns:
        The Axes. x: t [s]; y: energy [J].
    """
    return _energies(result, "gyroscopic_top", "plot_kinon2023_fig3", integrator, ax,
                     "Kinon2023 Fig. 3: top, energy quantities")


def plot_kinon2023_fig4(result, ax=None, integrator="ggl"):
    """[Kinon2023] Fig. 4 (§5.1): the top's angular momentum L₃ about e₃ (conserved).

    Returns:
        The Axes. x: t [s]; y: L₃ [kg m²/s].
    """
    return _lines(result, "gyroscopic_top", "plot_kinon2023_fig4", integrator, ax,
                  "L3", r"$L_3$ [kg m²/s]",
                  "Kinon2023 Fig. 4: top, angular momentum about $e_3$",
                  conserved=("L₃", "kg m²/s"))


def plot_kinon2023_fig5(result, ax=None, integrator="ggl"):
    """[Kinon2023] Fig. 5 (§5.1): the top's Hamiltonian increments H(t_{n+1}) - H(t_n) between
    consecutive samples (per step when sampled every step): bounded, no drift.

    Returns:
        The Axes. x: t [s]; y: the increment [J].
    """
    return _h_increments(result, "gyroscopic_top", "plot_kinon2023_fig5", integrator, ax,
                         "Kinon2023 Fig. 5: top, Hamiltonian increments")


def plot_kinon2023_fig6(result, ax=None, integrator="ggl"):
    """[Kinon2023] Fig. 6 (§5.1): the top's angular momentum increments L₃(t_{n+1}) - L₃(t_n):
    round-off.

    Returns:
        The Axes. x: t [s]; y: the increment [kg m²/s].
    """
    return _h_increments(result, "gyroscopic_top", "plot_kinon2023_fig6", integrator, ax,
                         "Kinon2023 Fig. 6: top, $L_3$ increments", observable="L3",
                         ylabel=r"$L_3(t_{n+1}) - L_3(t_n)$ [kg m²/s]")


def plot_kinon2023_fig7(result, ax=None, integrator="ggl"):
    """[Kinon2023] Fig. 7 (§5.1): the position-level constraints of the top. The paper draws each
    of the nine g_k; nhsim returns their maximum max_k |g_k(q)| (position_constraint_residual),
    log scale: round-off for ggl.

    Returns:
        The Axes. x: t [s]; y: max_k |g_k(q)|, mixed units as in the paper: the
        orthonormality constraints are dimensionless, the fixed tip's in m.
    """
    return _lines(result, "gyroscopic_top", "plot_kinon2023_fig7", integrator, ax,
                  "position_constraint_residual",
                  r"$\max_k |g_k(q)|$ (dimensionless; m for the tip)",
                  "Kinon2023 Fig. 7: top, position-level constraints", log=True)


def plot_kinon2023_fig8(result, ax=None, integrator="ggl"):
    """[Kinon2023] Fig. 8 (§5.1): the velocity-level constraints of the top at the step ends,
    max_k |(G(q) M⁻¹ p)_k| (velocity_constraint_residual; the paper draws each k): not zero,
    since ggl enforces them at the intermediate point only (eq. (41e)).

    Returns:
        The Axes. x: t [s]; y: max_k |(G M⁻¹ p)_k| [1/s; m/s for the tip].
    """
    return _lines(result, "gyroscopic_top", "plot_kinon2023_fig8", integrator, ax,
                  "velocity_constraint_residual",
                  r"$\max_k |(G(q) M^{-1} p)_k|$ [1/s; m/s for the tip]",
                  "Kinon2023 Fig. 8: top, velocity-level constraints at the step ends")


def plot_kinon2023_fig9(result, ax=None, integrator="ggl", observable="phi3"):
    """[Kinon2023] Fig. 9 (§5.1): h-convergence, the relative error
    e = |φ₃(t_final) - φ₃(0)| / φ₃(0) (eq. (69); φ₃(0) = 0.0375 m is the exact steady value)
    against h, log-log, with a slope-1 guide (examples/top_convergence.json).

    Returns:
        The Axes. x: h [s]; y: e (dimensionless).
    """
    proto, picked = _ggl_series(result, "gyroscopic_top", "plot_kinon2023_fig9", integrator)
    ax = _new_axes(ax)
    h, e = [], []
    for _, _, choice in picked:
        values = _mean(choice, observable)[1]
        h.append(choice.choice.h)
        e.append(abs(values[-1] - values[0]) / abs(values[0]))
    order = np.argsort(h)
    h, e = np.asarray(h)[order], np.asarray(e)[order]
    ax.plot(h, e, marker="o", color=_color(picked[0][2].choice.integrator),
            label=", ".join(dict.fromkeys(c.choice.integrator for _, _, c in picked)))
    ax.plot(h, 0.5 * e[-1] * h / h[-1], color="gray", linestyle=":",
            label=r"slope 1 ($\propto h$)")
    if len(h) > 1:
        slope = np.polyfit(np.log(h), np.log(e), 1)[0]
        ax.text(0.95, 0.05, f"least-squares slope {slope:.4f}", transform=ax.transAxes,
                fontsize="small", ha="right")
    ax.set_xscale("log")
    ax.set_xlabel(axis_label("step h", "s"))
    ax.set_ylabel(axis_label(r"$e = |\varphi_3(t) - \varphi_3(0)|\,/\,\varphi_3(0)$, "
                         f"t = {proto.integrators[0].sample_times[-1]:g} s", "1"))
    return _finish(ax, "Kinon2023 Fig. 9: top, h-convergence", log=True)


def plot_kinon2023_fig10(result, ax=None, integrator="ggl"):
    """[Kinon2023] Fig. 10 (§5.1): the height φ₃ of the top's centre of mass, which oscillates
    about the steady-precession value φ₃(0) = 0.0375 m (dotted).

    Returns:
        The Axes. x: t [s]; y: φ₃ [m].
    """
    ax = _lines(result, "gyroscopic_top", "plot_kinon2023_fig10", integrator, ax,
                "phi3", r"$\varphi_3$ [m]",
                "Kinon2023 Fig. 10: top, height of the centre of mass")
    proto = as_proto(result)
    start = _mean(_picked(proto, integrator)[0][2], "phi3")[1][0]
    ax.axhline(start, color="black", linestyle=":", linewidth=1.0,
               label=f"steady value {start:g} m")
    ax.legend(fontsize="small")
    return ax


def plot_kinon2023_fig12(result, ax=None, integrator="ggl"):
    """[Kinon2023] Fig. 12 (§5.2): the 1-coordinate x₄ of joint P₄ of the double four-bar linkage
    (examples/four_bar.json).

    Returns:
        The Axes. x: t [s]; y: x₄ [m].
    """
    return _lines(result, "four_bar", "plot_kinon2023_fig12", integrator, ax,
                  "x4", r"$x_4$ [m]", "Kinon2023 Fig. 12: 1-coordinate of P₄")


def plot_kinon2023_fig13(result, ax=None, integrator="ggl"):
    """[Kinon2023] Fig. 13 (§5.2): the 1-velocity v₄ of joint P₄.

    Returns:
        The Axes. x: t [s]; y: v₄ [m/s].
    """
    return _lines(result, "four_bar", "plot_kinon2023_fig13", integrator, ax,
                  "v4x", r"$v_4$ [m/s]", "Kinon2023 Fig. 13: 1-velocity of P₄")


def plot_kinon2023_fig14(result, ax=None, integrator="ggl"):
    """[Kinon2023] Fig. 14 (§5.2): the linkage's kinetic energy T, potential energy V and
    H = T + V.

    Returns:
        The Axes. x: t [s]; y: energy [J].
    """
    return _energies(result, "four_bar", "plot_kinon2023_fig14", integrator, ax,
                     "Kinon2023 Fig. 14: four-bar linkage, energy quantities")


def plot_kinon2023_fig15(result, ax=None, integrator="ggl"):
    """[Kinon2023] Fig. 15 (§5.2): the linkage's angular momentum L (eq. (75)), not conserved
    under gravity.

    Returns:
        The Axes. x: t [s]; y: L [kg m²/s].
    """
    return _lines(result, "four_bar", "plot_kinon2023_fig15", integrator, ax,
                  "L", r"$L$ [kg m²/s]",
                  "Kinon2023 Fig. 15: four-bar linkage, angular momentum")


def plot_kinon2023_fig16(result, ax=None, integrator="ggl"):
    """[Kinon2023] Fig. 16 (§5.2): the linkage's Hamiltonian increments H(t_{n+1}) - H(t_n)
    (per step when sampled every step; the paper: of order 1e-3 and stable).

    Returns:
        The Axes. x: t [s]; y: the increment [J].
    """
    return _h_increments(result, "four_bar", "plot_kinon2023_fig16", integrator, ax,
                         "Kinon2023 Fig. 16: four-bar, Hamiltonian increments")


def plot_kinon2023_fig17(result, ax=None, integrator="ggl"):
    """[Kinon2023] Fig. 17 (§5.2): the increments of the angular momentum L.

    Returns:
        The Axes. x: t [s]; y: the increment [kg m²/s].
    """
    return _h_increments(result, "four_bar", "plot_kinon2023_fig17", integrator, ax,
                         "Kinon2023 Fig. 17: four-bar, angular momentum increments",
                         observable="L", ylabel=r"$L(t_{n+1}) - L(t_n)$ [kg m²/s]")


def plot_kinon2023_fig18(result, ax=None, integrator="ggl"):
    """[Kinon2023] Fig. 18 (§5.2): bar 1's internal (rigidity) constraints on position level,
    max of |g^int_1| over its three (g_int_b1; the paper draws each), log scale: satisfied to
    the Newton tolerance.

    Returns:
        The Axes. x: t [s]; y: max |g^int_1(q)| (dimensionless: unit directors).
    """
    return _lines(result, "four_bar", "plot_kinon2023_fig18", integrator, ax,
                  "g_int_b1", r"$\max |g^{\mathrm{int}}_1(q)|$ (dimensionless)",
                  "Kinon2023 Fig. 18: bar 1, internal constraints, position level", log=True,
                  envelope=_WINDOWS)


def plot_kinon2023_fig19(result, ax=None, integrator="ggl"):
    """[Kinon2023] Fig. 19 (§5.2): bar 1's internal constraints on velocity level at the step ends
    (gv_int_b1, the max over the three): small, larger near the singular configurations.

    Returns:
        The Axes. x: t [s]; y: max |G^int_1 q'| [1/s].
    """
    return _lines(result, "four_bar", "plot_kinon2023_fig19", integrator, ax,
                  "gv_int_b1", r"$\max |G^{\mathrm{int}}_1(q)\,\dot q|$ [1/s]",
                  "Kinon2023 Fig. 19: bar 1, internal constraints, velocity level", log=True,
                  envelope=_WINDOWS)


def plot_kinon2023_fig20(result, ax=None, integrator="ggl"):
    """[Kinon2023] Fig. 20 (§5.2): the external constraint of joint P₄ (eq. (74b)) on position
    level (g_ext_p4, the max over its two components), log scale.

    Returns:
        The Axes. x: t [s]; y: max |g^ext_4(q)| [m].
    """
    return _lines(result, "four_bar", "plot_kinon2023_fig20", integrator, ax,
                  "g_ext_p4", r"$\max |g^{\mathrm{ext}}_4(q)|$ [m]",
                  "Kinon2023 Fig. 20: joint P₄, external constraint, position level", log=True,
                  envelope=_WINDOWS)


def plot_kinon2023_fig21(result, ax=None, integrator="ggl"):
    """[Kinon2023] Fig. 21 (§5.2): the external constraint of joint P₄ on velocity level
    (gv_ext_p4): exact at the step ends too, its Jacobian being constant.

    Returns:
        The Axes. x: t [s]; y: max |G^ext_4 q'| [m/s].
    """
    return _lines(result, "four_bar", "plot_kinon2023_fig21", integrator, ax,
                  "gv_ext_p4", r"$\max |G^{\mathrm{ext}}_4\,\dot q|$ [m/s]",
                  "Kinon2023 Fig. 21: joint P₄, external constraint, velocity level", log=True,
                  envelope=_WINDOWS)


def plot_kinon2023_fig22(result, ax=None, integrator="ggl"):
    """[Kinon2023] Fig. 22 (§5.2): T, V and H = T + V of the damped linkage (dampers η = 0.5 N s/m,
    examples/four_bar_damped.json): H decays.

    Returns:
        The Axes. x: t [s]; y: energy [J].
    """
    return _energies(result, "four_bar", "plot_kinon2023_fig22", integrator, ax,
                     "Kinon2023 Fig. 22: damped four-bar linkage, energy quantities")


def plot_kinon2023_fig23(result, ax=None, integrator="ggl"):
    """[Kinon2023] Fig. 23 (§5.2): the energy lost between consecutive samples,
    -(H(t_{n+1}) - H(t_n)), beside the dissipated energy of the dampers over the same interval,
    the trapezoidal sum of the dissipated power P_v = v·C v (dissipated_power). Per step when
    sampled every step.

    Returns:
        The Axes. x: t [s]; y: energy per sample interval [J].
    """
    _, picked = _ggl_series(result, "four_bar", "plot_kinon2023_fig23", integrator)
    ax = _new_axes(ax)
    for k, label, choice in picked:
        t, error = _mean(choice, "energy_error")
        power = _mean(choice, "dissipated_power")[1]
        color = _color(choice.choice.integrator)
        dt = np.diff(t)
        suffix = f", {label}" if len(picked) > 1 else ""
        ax.plot(t[1:], -np.diff(error), color=color, linewidth=1.2,
                label=r"lost energy $-(H_{n+1} - H_n)$" + suffix)
        ax.plot(t[1:], 0.5 * dt * (power[1:] + power[:-1]), color="black", linestyle="--",
                linewidth=0.8, label=r"dissipated $\int P_v\,dt$ (trapezoidal)" + suffix)
        step = _sample_step(choice) / choice.choice.h
    ax.set_xlabel(axis_label("t", "s"))
    ax.set_ylabel("energy per sample interval [J]")
    per = "per step" if round(step) == 1 else f"per {step:g} steps"
    return _finish(ax, f"Kinon2023 Fig. 23: damped four-bar, dissipated energy ({per})")
