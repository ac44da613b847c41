"""The server's catalogue as plain dataclasses and pandas DataFrames (not protobuf messages).

Client.systems() and Client.integrators() return DataFrames (one row per system or integrator),
Client.parameters() one row per system x parameter, and Client.register_system() a System.
"""

import dataclasses
from typing import Dict, Tuple

import pandas as pd

#: The columns of systems_frame, in order.
SYSTEM_COLUMNS = ["name", "description", "source", "parameters", "invariants", "integrators",
                  "newton_tol_defaults"]
#: The columns of parameters_frame, in order.
PARAMETER_COLUMNS = ["system", "name", "unit", "default", "min", "max", "integer",
                     "description"]
#: The columns of integrators_frame, in order.
INTEGRATOR_COLUMNS = ["name", "order", "implicit", "energy_preserving", "requirements",
                      "default_newton_tol", "default_newton_max_iter", "description", "source"]


@dataclasses.dataclass(frozen=True)
class Parameter:
    """A system parameter: `unit` is free text ("kg"; "1" dimensionless), `default`, `min` and
    `max` (inclusive bounds) in that unit; `integer`: it must be a whole number."""
    name: str
    unit: str
    default: float
    min: float
    max: float
    integer: bool
    description: str

    @classmethod
    def from_proto(cls, info):
        """From an nhsim.v1.ParameterInfo."""
        return cls(info.name, info.unit, info.default_value, info.min_value, info.max_value,
                   info.integer, info.description)


@dataclasses.dataclass(frozen=True)
class System:
    """A system the server runs (a catalogue one or a registered custom one).

    Attributes: name; description; source (where the equations come from); parameters (tuple
    of Parameter); invariants (tuple of names sampled besides energy); integrators (tuple of the
    integrator names that apply); newton_tol_defaults ({integrator: newton_tol} overrides).
    """
    name: str
    description: str
    source: str
    parameters: Tuple[Parameter, ...]
    invariants: Tuple[str, ...]
    integrators: Tuple[str, ...]
    newton_tol_defaults: Dict[str, float]

    @classmethod
    def from_proto(cls, info):
        """From an nhsim.v1.SystemInfo."""
        return cls(info.name, info.description, info.source,
                   tuple(Parameter.from_proto(p) for p in info.parameters),
                   tuple(info.invariants), tuple(info.integrators),
                   dict(info.newton_tol_defaults))


def systems_frame(infos):
    """One row per system (SYSTEM_COLUMNS) from nhsim.v1.SystemInfo messages or Systems:
    parameters, invariants and integrators as tuples of names."""
    rows = []
    for info in infos:
        system = info if isinstance(info, System) else System.from_proto(info)
        rows.append([system.name, system.description, system.source,
                     tuple(p.name for p in system.parameters), system.invariants,
                     system.integrators, system.newton_tol_defaults])
    return pd.DataFrame(rows, columns=SYSTEM_COLUMNS)


def parameters_frame(infos):
    """One row per system x parameter (PARAMETER_COLUMNS), from SystemInfo messages or
    Systems; default, min and max are in the parameter's unit."""
    rows = []
    for info in infos:
        system = info if isinstance(info, System) else System.from_proto(info)
        rows.extend([system.name, *dataclasses.astuple(p)] for p in system.parameters)
    frame = pd.DataFrame(rows, columns=PARAMETER_COLUMNS)
    return frame.astype({"default": float, "min": float, "max": float, "integer": bool})


def integrators_frame(infos):
    """One row per integrator (INTEGRATOR_COLUMNS) from nhsim.v1.IntegratorInfo messages:
    order (int), implicit and energy_preserving (bool), requirements (tuple of str), the Newton
    defaults (0 where there is no Newton solve)."""
    rows = [[i.name, i.order, i.implicit, i.energy_preserving, tuple(i.requirements),
             i.default_newton_tol, i.default_newton_max_iter, i.description, i.source]
            for i in infos]
    return pd.DataFrame(rows, columns=INTEGRATOR_COLUMNS).astype(
        {"order": "int64", "implicit": bool, "energy_preserving": bool,
         "default_newton_tol": float, "default_newton_max_iter": "int64"})
