"""The units of a result's axes: of t and of an observable, by system, and the axis label that
carries one. Used by nhsim.plot and nhsim.summary; no matplotlib.

The units of a catalogue system are not in its result, and the catalogue (ListSystems) gives
only its parameters' units, not those of t or of an observable: they are listed here by system
name. A system not listed (a custom one) has no unit here, and its axes carry the bare name
unless the units are given (Result.units, plot_summary's ``units=``).
"""

# Systems whose parameters are all dimensionless: time and every observable are too.
_DIMENSIONLESS = frozenset({"chaotic_quartic", "gearbox", "nonholonomic_particle", "knife_edge"})
# Systems with SI parameters (kg, m, m/s^2): time in s, energy in J.
_SI = frozenset({"rolling_disk", "chaplygin_sleigh", "suslov", "chaplygin_sleigh_com",
                 "snakeboard", "nontwisting_body", "rigid_body", "gyroscopic_top", "four_bar"})
_ENERGY_OBSERVABLES = frozenset({"energy_error", "kinetic_energy", "potential_energy"})


def time_unit(system):
    """The unit of t for a system: "s", "1" (dimensionless) or None (unknown)."""
    if system in _DIMENSIONLESS:
        return "1"
    return "s" if system in _SI else None


def observable_unit(system, observable):
    """The unit of an observable of a system: "J", "1" (dimensionless) or None (unknown).
    invariant_error[NAME], the change of NAME along a trajectory, has NAME's unit."""
    if observable.startswith("invariant_error[") and observable.endswith("]"):
        observable = observable[len("invariant_error["):-1]
    if system in _DIMENSIONLESS or observable == "relative_energy_error":
        return "1"
    if system in _SI and observable in _ENERGY_OBSERVABLES:
        return "J"
    return None


def axis_label(text, unit, power=1):
    """An axis label with its unit: "text [unit]" ("[unit²]" for power 2), "text
    (dimensionless)" for unit "1", or the bare text for no unit (None or "")."""
    if not unit:
        return text
    if unit == "1":
        return f"{text} (dimensionless)"
    return f"{text} [{unit}{'²' if power == 2 else ''}]"
