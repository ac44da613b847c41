"""The figures of [Gebhardt2020] (docs/experiments-seed004.md): the rigid body in the
non-twisting frame, energy-momentum integrator against DLA."""

import math
import re

import numpy as np

from nhsim.plot._paper import (_COMPONENT_COLORS, _color, _conserved, _finish, _mean, _picked,
                               _require, _single, _style, _subplots)
from nhsim.results import as_proto
from nhsim.units import axis_label


def second_quotient(result, integrator=None):
    """The second quotient of precision Q(t) = |q_h - q_{h/2}| / |q_{h/2} - q_{h/4}| ([Gebhardt2020]
    Tables 1, 3, 5 and Figs. 2, 5, 8; the Euclidean norm over the q[i] series, the nine director
    components) of each integrator that runs at three step sizes h, h/2, h/4 sampled at the
    same times (examples/nontwisting_precision.json). Q ≈ 4 for a second-order method.

    Args:
        result: a single-trajectory result with q[i] series.
        integrator: the integrator id(s) to compute (None = every one with three step sizes).

    Returns:
        {integrator id: (t, Q)}, float arrays; Q is NaN where the denominator is 0 (t = 0).
    """
    proto = as_proto(result)
    _single(proto, "second_quotient")
    quotients = {}
    for name in dict.fromkeys(c.choice.integrator for _, _, c in _picked(proto, integrator)):
        choices = sorted((c for _, _, c in _picked(proto, name)), key=lambda c: -c.choice.h)
        if len(choices) < 3:
            continue
        coarse, middle, fine = choices[:3]
        t = np.asarray(coarse.sample_times, dtype=float)
        for other in (middle, fine):
            if len(other.sample_times) != len(t) or not np.allclose(other.sample_times, t):
                raise ValueError(f"{name}: the three step sizes are not sampled at the same "
                                 "times (scale sample_every with 1/h)")
        names = [s.observable for s in coarse.observables if s.observable.startswith("q[")]
        if not names:
            raise ValueError(f"{name}: no q[i] series in the result")
        states = [np.array([_mean(c, n)[1] for n in names]) for c in (coarse, middle, fine)]
        top = np.linalg.norm(states[0] - states[1], axis=0)
        bottom = np.linalg.norm(states[1] - states[2], axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            quotients[name] = (t, np.where(bottom > 0, top / bottom, np.nan))
    if not quotients:
        raise ValueError("no integrator runs at three step sizes in the result")
    return quotients


def _case_title(proto, title):
    """title with its "case N" replaced by the case the result's label names, if it names one
    (the plot functions follow the paper's figure numbers; a user may draw another case)."""
    named = re.search(r"\bcase (\d)", proto.label)
    return re.sub(r"\bcase \d", f"case {named.group(1)}", title) if named else title


def _momenta(result, figure, title, integrator):
    proto = as_proto(result)
    _require(proto, ("nontwisting_body", "rigid_body"), figure)
    _single(proto, figure)
    fig, ((spatial, material),) = _subplots(2, width=5.4, height=4.0)
    picked = _picked(proto, integrator)
    for ax, names, texts, what in (
            (spatial, ("sam_1", "sam_2", "sam_3"), ("SAM 1", "SAM 2", "SAM 3"), "spatial (SAM)"),
            (material, ("Pi1", "Pi2", "Pi3"), ("Π¹", "Π²", "Π³"), "material (MAM)")):
        for k, label, choice in picked:
            suffix = f", {label}" if len(picked) > 1 else ""
            for n, name in enumerate(names):
                t, values = _mean(choice, name)
                ax.plot(t, values, color=_COMPONENT_COLORS[n], linewidth=1.0,
                        linestyle=["-", "--", ":"][k % 3], label=texts[n] + suffix)
        ax.set_xlabel(axis_label("t", "s"))
        ax.set_ylabel(f"{what} angular momentum [kg m²/s]")
        _finish(ax, f"{what} angular momentum")
    names = ", ".join(dict.fromkeys(c.choice.integrator for _, _, c in picked))
    fig.suptitle(_case_title(proto, title) + f" ({names}, h = {picked[0][2].choice.h:g} s)")
    return fig


def plot_gebhardt2020_fig1(result, integrator="em"):
    """[Gebhardt2020] Fig. 1 (§6.1, case 1): the spatial angular momentum components (left, they
    oscillate) and the material ones Π¹, Π², Π³ (right: constant, Π³ = 0), from a
    single-trajectory nontwisting_body result with sam_1..3 and Pi1..3
    (examples/nontwisting_case1.json).

    Returns:
        The matplotlib Figure. x: t [s]; y: angular momentum [kg m²/s].
    """
    return _momenta(result, "plot_gebhardt2020_fig1",
                    "Gebhardt2020 Fig. 1: case 1, angular momenta", integrator)


def plot_gebhardt2020_fig4(result, integrator="em"):
    """[Gebhardt2020] Fig. 4 (§6.2, case 2, a vanishing load): as plot_gebhardt2020_fig1; the
    momenta vary while the load acts (t < 1 s), then the material ones stay constant
    (examples/nontwisting_case2.json).

    Returns:
        The matplotlib Figure.
    """
    return _momenta(result, "plot_gebhardt2020_fig4",
                    "Gebhardt2020 Fig. 4: case 2, angular momenta", integrator)


def plot_gebhardt2020_fig7(result, integrator="em"):
    """[Gebhardt2020] Fig. 7 (§6.3, case 3): as plot_gebhardt2020_fig4 for case 3
    (examples/nontwisting_case3.json).

    Returns:
        The matplotlib Figure.
    """
    return _momenta(result, "plot_gebhardt2020_fig7",
                    "Gebhardt2020 Fig. 7: case 3, angular momenta", integrator)


def _energy_precision(result, precision, figure, title, integrator):
    proto = as_proto(result)
    _require(proto, ("nontwisting_body", "rigid_body"), figure)
    _single(proto, figure)
    fig, ((energy, quotient),) = _subplots(2, width=5.4, height=4.0)
    drawn, lines = [], []
    for k, label, choice in _picked(proto, integrator):
        t, kinetic = _mean(choice, "kinetic_energy")
        lines.append(energy.plot(t, kinetic, **_style(label, choice, k, None))[0])
        drawn.append((label, kinetic))
    energy.set_xlabel(axis_label("t", "s"))
    energy.set_ylabel(axis_label("kinetic energy K", "J"))
    conserved = _conserved(energy, drawn, "K", "J")
    _finish(energy, "kinetic energy", legend=False)
    if _coincide(energy, lines):
        # One line would hide the others: the first wide and pale, the others dashed on top,
        # and their changes K(t) - K(0) apart in an inset when K is conserved.
        lines[0].set(linewidth=4.0, alpha=0.4, zorder=2)
        for n, line in enumerate(lines[1:]):
            line.set(linestyle=[(0, (5, 3)), (0, (1, 2)), (0, (5, 2, 1, 2))][n % 3],
                     linewidth=1.3, zorder=3)
        names = " and ".join(label for label, _ in drawn)
        energy.legend(fontsize="small", loc="upper right",
                      title=f"{names} coincide at this scale", title_fontsize="small")
        if conserved:
            changes = [kinetic - kinetic[0] for _, kinetic in drawn]
            largest = max(np.nanmax(np.abs(c)) for c in changes)
            power = math.floor(math.log10(largest)) if largest > 0 else 0
            inset = energy.inset_axes([0.1, 0.18, 0.87, 0.22])
            for change, line in zip(changes, lines):
                inset.plot(t, change / 10.0 ** power, color=line.get_color(), linewidth=1.0,
                           linestyle=line.get_linestyle())
            inset.set_title(f"K(t) - K(0) [$10^{{{power}}}$ J]", fontsize="x-small", pad=2)
            inset.set_xlim(energy.get_xlim())
            inset.tick_params(labelsize="x-small", labelbottom=False, pad=1)
            inset.grid(True, alpha=0.3)
    elif lines:
        energy.legend(fontsize="small")
    if precision is not None:
        for name, (t, q) in second_quotient(precision, integrator).items():
            quotient.plot(t, q, marker="o", markersize=3, color=_color(name), label=name)
        quotient.axhline(4, color="gray", linestyle=":", linewidth=1.0,
                         label="4 (second order)")
        low, high = quotient.get_ylim()
        quotient.set_ylim(min(low, 3.5), max(high, 4.5))
        quotient.set_xlabel(axis_label("t", "s"))
        quotient.set_ylabel(axis_label(r"$Q = |q_h - q_{h/2}|\,/\,|q_{h/2} - q_{h/4}|$", "1"))
        h = max(c.choice.h for c in as_proto(precision).integrators)
        _finish(quotient, f"second quotient of precision (h = {h:g} s)")
    else:
        quotient.set_visible(False)
    fig.suptitle(_case_title(proto, title))
    return fig


def _coincide(ax, lines):
    """True when there are several lines and all lie within 1/500 of the y range of the first
    (closer than a pixel: the last drawn hides the others)."""
    if len(lines) < 2:
        return False
    low, high = ax.get_ylim()
    first = np.asarray(lines[0].get_ydata(), dtype=float)
    for line in lines[1:]:
        other = np.asarray(line.get_ydata(), dtype=float)
        if len(other) != len(first):
            return False
        both = np.isfinite(first) & np.isfinite(other)
        if not both.any() or np.max(np.abs(other[both] - first[both])) > (high - low) / 500:
            return False
    return True


def plot_gebhardt2020_fig2(result, precision=None, integrator="em"):
    """[Gebhardt2020] Fig. 2 (§6.1, case 1): the kinetic energy (left, constant) and the second
    quotient of precision Q(t) (right, ≈ 4; second_quotient of the precision result).

    Args:
        result: a single-trajectory nontwisting_body result with kinetic_energy
            (examples/nontwisting_case1.json).
        precision: the same case at h, h/2, h/4 with the q[i] series
            (examples/nontwisting_precision.json); None = the left panel only.
        integrator: the integrator id(s) drawn (None = every choice).

    Returns:
        The matplotlib Figure. K in J; Q dimensionless.
    """
    return _energy_precision(result, precision, "plot_gebhardt2020_fig2",
                             "Gebhardt2020 Fig. 2: case 1, kinetic energy and precision",
                             integrator)


def plot_gebhardt2020_fig5(result, precision=None, integrator="em"):
    """[Gebhardt2020] Fig. 5 (§6.2, case 2): as plot_gebhardt2020_fig2; K grows while the load acts.

    Returns:
        The matplotlib Figure.
    """
    return _energy_precision(result, precision, "plot_gebhardt2020_fig5",
                             "Gebhardt2020 Fig. 5: case 2, kinetic energy and precision",
                             integrator)


def plot_gebhardt2020_fig8(result, precision=None, integrator="em"):
    """[Gebhardt2020] Fig. 8 (§6.3, case 3): as plot_gebhardt2020_fig2 for case 3.

    Returns:
        The matplotlib Figure.
    """
    return _energy_precision(result, precision, "plot_gebhardt2020_fig8",
                             "Gebhardt2020 Fig. 8: case 3, kinetic energy and precision",
                             integrator)


_SPHERE_NOTE = "\n(unit vector, dimensionless; black dot: t = 0)"


def _d3_sphere(result, ax, figure, title, integrator):
    proto = as_proto(result)
    _require(proto, ("nontwisting_body", "rigid_body"), figure)
    _single(proto, figure)
    if ax is None:
        import matplotlib.pyplot as plt  # pylint: disable=import-outside-toplevel
        fig = plt.figure(figsize=(5.6, 5.8), layout="constrained")
        ax = fig.add_subplot(projection="3d")
    u, v = np.meshgrid(np.linspace(0, 2 * np.pi, 25), np.linspace(0, np.pi, 13))
    ax.plot_wireframe(np.cos(u) * np.sin(v), np.sin(u) * np.sin(v), np.cos(v), color="gray",
                      linewidth=0.3, alpha=0.35)
    late = None
    for k, label, choice in _picked(proto, integrator):
        d3 = np.array([_mean(choice, f"d3_{i}")[1] for i in (1, 2, 3)])
        style = _style(label, choice, k, None, linewidth=1.2)
        # Consecutive samples more than 0.3 rad apart on the sphere (a fast spin, e.g. case 2's
        # |ω| h ≈ 2.2 rad) are not joined: the chord would cut through the sphere.
        gap = np.concatenate([[False], np.sum(np.diff(d3, axis=1) ** 2, axis=0) > 0.3 ** 2])
        joined = np.insert(d3, np.flatnonzero(gap), np.nan, axis=1)
        ax.plot(*joined, **style)
        ax.scatter(*d3, color=style["color"] or "C0", s=1.5, depthshade=False)
        ax.scatter(*d3[:, :1], color="black", s=20, marker="o", depthshade=False)
        if late is None:
            finite = d3[:, np.all(np.isfinite(d3), axis=0)]
            late = finite[:, finite.shape[1] // 2:]
    if late is not None and late.shape[1] >= 3:
        # Look at the plane of the second half of the path from 35 degrees off its normal.
        normal = np.linalg.svd(late - late.mean(axis=1, keepdims=True))[0][:, 2]
        normal = normal if normal[2] >= 0 else -normal
        elev = math.degrees(math.asin(min(1.0, abs(normal[2]))))
        azim = math.degrees(math.atan2(normal[1], normal[0]))
        ax.view_init(elev=elev + 35.0 if elev <= 50.0 else elev - 35.0, azim=azim + 20.0)
    for setter in (ax.set_xticks, ax.set_yticks, ax.set_zticks):
        setter([-1, 0, 1])
    # Upright axis labels: matplotlib turns each label along its axis as projected, which
    # mirrors or inverts it when the view puts the axis on the left or bottom edge.
    for component, axis in enumerate((ax.xaxis, ax.yaxis, ax.zaxis), start=1):
        axis.set_rotate_label(False)
        axis.set_label_text(rf"$d_{{3,{component}}}$", rotation=0, ha="center", va="center")
        axis.labelpad = 2
        axis.set_pane_color((0.95, 0.95, 0.95, 0.5))  # faint walls, no grid: the sphere's
    ax.grid(False)                                    # wireframe is the reference
    ax.set(xlim=(-1, 1), ylim=(-1, 1), zlim=(-1, 1))
    ax.tick_params(pad=0, labelsize="small")
    ax.set_box_aspect((1, 1, 1), zoom=0.88)
    ax.set_title(_case_title(proto, title), fontsize="medium")
    ax.legend(fontsize="small", loc="upper left", borderaxespad=0.0, handlelength=1.5)
    return ax


def plot_gebhardt2020_fig3(result, ax=None, integrator="em"):
    """[Gebhardt2020] Fig. 3 (§6.1, case 1): the path of the third director d₃ on the unit sphere S²
    (d3_1..3 of a single trajectory): a great circle, a geodesic.

    Args:
        result: a single-trajectory nontwisting_body result with d3_1, d3_2, d3_3.
        ax: a 3D Axes (projection="3d") to draw into; None = a new figure.
        integrator: the integrator id(s) drawn (None = every choice).

    Returns:
        The 3D Axes.
    """
    return _d3_sphere(result, ax, "plot_gebhardt2020_fig3",
                      "Gebhardt2020 Fig. 3: case 1, $d_3$ on $S^2$" + _SPHERE_NOTE, integrator)


def plot_gebhardt2020_fig6(result, ax=None, integrator="em"):
    """[Gebhardt2020] Fig. 6 (§6.2, case 2): d₃ on S², again a great circle.

    Returns:
        The 3D Axes.
    """
    return _d3_sphere(result, ax, "plot_gebhardt2020_fig6",
                      "Gebhardt2020 Fig. 6: case 2, $d_3$ on $S^2$" + _SPHERE_NOTE, integrator)


def plot_gebhardt2020_fig9(result, ax=None, integrator="em"):
    """[Gebhardt2020] Fig. 9 (§6.3, case 3): d₃ on S²: off a geodesic while the load turns the axis
    of rotation (t < 1 s), a great circle afterwards.

    Returns:
        The 3D Axes.
    """
    return _d3_sphere(result, ax, "plot_gebhardt2020_fig9",
                      "Gebhardt2020 Fig. 9: case 3, $d_3$ on $S^2$" + _SPHERE_NOTE, integrator)


def _d3_component(result, component, figure, number, zoom_from=4.0):
    proto = as_proto(result)
    _require(proto, ("nontwisting_body", "rigid_body"), figure)
    _single(proto, figure)
    fig, ((whole, late),) = _subplots(2, width=5.4, height=3.8)
    name = f"d3_{component}"
    for k, label, choice in _picked(proto):
        t, values = _mean(choice, name)
        style = _style(label, choice, k, None)
        whole.plot(t, values, **style)
        keep = t >= zoom_from
        late.plot(t[keep], values[keep], marker=".", markersize=2, **style)
    t_final = proto.integrators[0].sample_times[-1]
    for ax, span in ((whole, (0, t_final)), (late, (zoom_from, t_final))):
        ax.set_xlim(*span)
        ax.set_xlabel(axis_label("t", "s"))
        ax.set_ylabel(axis_label(f"$d_{{3,{component}}}$", "1"))
        _finish(ax, f"interval [{span[0]:g}, {span[1]:g}] s", legend=ax is late)
    names = " against ".join(dict.fromkeys(c.choice.integrator for c in proto.integrators))
    fig.suptitle(_case_title(proto, f"Gebhardt2020 Fig. {number}: case 1, component {component} "
                                    f"of d₃, {names} (h = {proto.integrators[0].choice.h:g} s)"))
    return fig


def plot_gebhardt2020_fig10(result):
    """[Gebhardt2020] Fig. 10 (§6.4): the first component of d₃ for every choice (em and dla of
    examples/nontwisting_case1.json) over [0, t_final] (left) and [4, 5] s (right), where the
    O(h²) phase difference shows.

    Returns:
        The matplotlib Figure. x: t [s]; y: d₃,₁ (dimensionless).
    """
    return _d3_component(result, 1, "plot_gebhardt2020_fig10", 10)


def plot_gebhardt2020_fig11(result):
    """[Gebhardt2020] Fig. 11 (§6.4): as plot_gebhardt2020_fig10 for the second component of d₃.

    Returns:
        The matplotlib Figure.
    """
    return _d3_component(result, 2, "plot_gebhardt2020_fig11", 11)


def plot_gebhardt2020_fig12(result):
    """[Gebhardt2020] Fig. 12 (§6.4): as plot_gebhardt2020_fig10 for the third component of d₃.

    Returns:
        The matplotlib Figure.
    """
    return _d3_component(result, 3, "plot_gebhardt2020_fig12", 12)
