"""User-defined systems from sympy: the ``custom_system`` of a spec.

nhsimd takes a mechanical system as expressions (docs/custom-systems.md): coordinates,
parameters, a mass matrix M (constant or M(q)), a potential V(q) and constraint one-forms mu(q). This
module writes that message from sympy expressions, so that a system derived in sympy is
submitted without retyping it::

    import sympy as sp
    import nhsim.symbolic
    x, y, z, eps = sp.symbols("x y z epsilon")
    system = nhsim.symbolic.custom_system(
        coordinates=[x, y, z],
        potential=(x**2 + y**2 + z**2) / 2 + eps * x**2 * z**2 / 2,
        constraints=[[1, 0, y]],
        parameters={eps: 0.5})
    spec = {"custom_system": system, "initial_conditions": ..., "integrators": ...}
    nhsim.Client().submit(spec)

or from a Lagrangian L(q, q') quadratic in the velocities (custom_system_from_lagrangian).

Expressions are printed in nhsimd's infix syntax (``^`` for powers, ``abs``, ``exp(1)`` for E)
from sympy's expression tree; only what nhsimd's parser accepts is printed: numbers, the
coordinates, the parameters, pi, E, + - * / ^ and sin, cos, tan, exp, log, sqrt, abs. Anything
else raises ValueError naming the field (``custom_system.potential``,
``custom_system.constraints[0][2]``) before a request is sent; the server checks the rest (M
symmetric and positive definite; mu of full rank at the initial states) and answers
INVALID_ARGUMENT naming the same fields. Floats are printed with all 17 significant digits, so
the server reads the same doubles.

Imported on its own (``import nhsim.symbolic``), so that the client does not load sympy.
"""

import math

import sympy
from sympy.printing.precedence import precedence
from sympy.printing.str import StrPrinter

#: The sympy functions nhsimd's parser knows, by the name it knows them under.
_FUNCTIONS = {sympy.sin: "sin", sympy.cos: "cos", sympy.tan: "tan", sympy.exp: "exp",
              sympy.log: "log", sympy.Abs: "abs"}


class _Printer(StrPrinter):
    """sympy's str printer with nhsimd's spellings: ``^``, ``abs``, ``exp(1)``, exact floats."""

    def _print_Pow(self, expr, rational=False):
        base, exponent = expr.as_base_exp()
        if exponent == sympy.S.Half:
            return f"sqrt({self._print(base)})"
        if exponent == -sympy.S.Half:
            return f"1/sqrt({self._print(base)})"
        if exponent == -1:
            return f"1/{self.parenthesize(base, precedence(expr), strict=True)}"
        base_text = self.parenthesize(base, precedence(expr), strict=True)
        if exponent.is_Integer and exponent > 0:
            return f"{base_text}^{exponent}"
        return f"{base_text}^({self._print(exponent)})"

    def _print_Abs(self, expr):
        return f"abs({self._print(expr.args[0])})"

    def _print_Exp1(self, expr):
        return "exp(1)"

    def _print_Float(self, expr):
        return repr(float(expr))


def _check_tree(expr, allowed_symbols, field):
    """ValueError(field: reason) unless every node of expr is something nhsimd's parser takes."""
    for node in sympy.preorder_traversal(expr):
        if node.is_Symbol:
            if node not in allowed_symbols:
                raise ValueError(f"{field}: unknown symbol '{node}' (not a coordinate or a "
                                 "parameter)")
        elif node.is_Float:
            if not math.isfinite(float(node)):
                raise ValueError(f"{field}: the number {node} is not finite")
        elif node.is_Rational or node in (sympy.pi, sympy.E):
            pass
        elif node.is_Add or node.is_Mul or node.is_Pow:
            pass
        elif node.is_Function and node.func in _FUNCTIONS:
            pass
        else:
            allowed = ", ".join(sorted(set(_FUNCTIONS.values()) | {"sqrt"}))
            raise ValueError(f"{field}: '{node}' ({type(node).__name__}) is not supported "
                             f"(allowed: numbers, coordinates, parameters, pi, E, + - * / ^ "
                             f"and {allowed})")


def to_expression(expr, allowed_symbols, field="expression"):
    """The nhsimd infix text of a sympy expression (or a number).

    Args:
        expr: a sympy expression, or an int or float.
        allowed_symbols: the symbols it may contain (the coordinates and parameters).
        field: the field path for errors, e.g. ``"custom_system.potential"``.

    Returns:
        str, e.g. ``"x^2/2 + epsilon*x^2*z^2/2"``.

    Raises:
        ValueError: "<field>: <reason>" for a symbol not in allowed_symbols, a function outside
            nhsimd's whitelist, a complex or infinite number.
    """
    expr = sympy.sympify(expr)
    _check_tree(expr, set(allowed_symbols), field)
    return _Printer().doprint(expr)


def _parameters(parameters):
    """[(symbol, value, unit)] from {symbol: value} or {symbol: (value, unit)}."""
    out = []
    for symbol, given in (parameters or {}).items():
        value, unit = given if isinstance(given, tuple) else (given, "")
        out.append((sympy.Symbol(str(symbol)) if isinstance(symbol, str) else symbol,
                    float(value), unit))
    return out


def _rows(matrix, n, field):
    """Rows of a sympy Matrix or a list of lists, each of length n."""
    rows = matrix.tolist() if isinstance(matrix, sympy.MatrixBase) else [list(r) for r in matrix]
    for i, row in enumerate(rows):
        if len(row) != n:
            raise ValueError(f"{field}[{i}]: has {len(row)} entries, expected {n} (one per "
                             "coordinate)")
    return rows


def momenta(coordinates):
    """The sympy Symbols nhsimd names the conjugate momenta: p_<coordinate>, in order."""
    return [sympy.Symbol(f"p_{c}") for c in coordinates]


def custom_system(coordinates, potential, constraints, mass_matrix=None, parameters=None,
                  invariants=None, control_forces=None, holonomic_constraints=None):
    """The ``custom_system`` message of a spec, as a dict in the protobuf JSON mapping.

    Args:
        coordinates: sympy Symbols q^1..q^n, in order (state vectors follow this order).
        potential: V(q), a sympy expression [the user's energy unit].
        constraints: mu(q), m rows of n expressions (a sympy Matrix or lists); the constraint
            is mu(q) M^-1 p = 0, i.e. mu(q) q' = 0. May be empty with holonomic_constraints.
        mass_matrix: M, n x n (sympy Matrix or lists), constant or M(q); default the identity.
        parameters: {symbol: value} or {symbol: (value, unit)}; units are free text.
        invariants: {name: expression} of named invariants in the coordinates, the momenta
            (momenta(coordinates): p_x for coordinate x) and the parameters, sampled by the
            server as observables under their names.
        control_forces: b_j(q), one row of n expressions per control input u_j (the spec's
            ``controls[j]`` gives u_j(t)); the applied force is sum_j b_j(q) u_j(t) - dV/dq.
        holonomic_constraints: g_k(q), one expression each, g(q) = 0 ([Kinon2023] eq. (1)); the
            server adds their velocity form dg/dq to the constraint rows, and ggl applies when
            each g_k is at most quadratic in q and ``constraints`` is empty.

    Returns:
        dict with coordinates, parameters, mass_matrix, potential, constraints (and invariants,
        control_forces and holonomic_constraints when given), for ``spec["custom_system"]``.

    Raises:
        ValueError: "<field>: <reason>" for rows of the wrong length or an expression nhsimd's
            parser would refuse (see to_expression).
    """
    coordinates = list(coordinates)
    n = len(coordinates)
    params = _parameters(parameters)
    allowed = set(coordinates) | {symbol for symbol, _, _ in params}
    if mass_matrix is None:
        mass_matrix = sympy.eye(n)
    field = "custom_system"

    def matrix(rows, name):
        return [{"entries": [to_expression(e, allowed, f"{field}.{name}[{i}][{j}]")
                             for j, e in enumerate(row)]}
                for i, row in enumerate(_rows(rows, n, f"{field}.{name}"))]

    out = {
        "coordinates": [str(c) for c in coordinates],
        "parameters": [{"name": str(s), "value": v, "unit": u} for s, v, u in params],
        "mass_matrix": matrix(mass_matrix, "mass_matrix"),
        "potential": to_expression(potential, allowed, f"{field}.potential"),
        "constraints": matrix(constraints, "constraints"),
    }
    if invariants:
        with_momenta = allowed | set(momenta(coordinates))
        out["invariants"] = [
            {"name": name,
             "expression": to_expression(e, with_momenta, f"{field}.invariants[{k}].expression")}
            for k, (name, e) in enumerate(invariants.items())]
    if control_forces:
        out["control_forces"] = matrix(control_forces, "control_forces")
    if holonomic_constraints:
        out["holonomic_constraints"] = [
            to_expression(g, allowed, f"{field}.holonomic_constraints[{k}]")
            for k, g in enumerate(holonomic_constraints)]
    return out


def custom_system_from_lagrangian(coordinates, velocities, lagrangian, constraints,
                                  parameters=None):
    """custom_system() of a Lagrangian L(q, q') = 1/2 q'^T M q' - V(q).

    M is the Hessian of L in the velocities and V = -L at q' = 0. A term linear in the
    velocities (a gyroscopic or magnetic term) has no place in nhsimd's canonical form and is
    refused, as is a Lagrangian not quadratic in the velocities.

    Args:
        coordinates: sympy Symbols q^1..q^n.
        velocities: sympy Symbols q'^1..q'^n, in the same order.
        lagrangian: L, a sympy expression in coordinates, velocities and parameters.
        constraints, parameters: as for custom_system().

    Returns:
        The dict of custom_system(). A mass matrix that depends on q is passed on; on it
        nhsimd runs gonzalez_r and gonzalez_r_fd.

    Raises:
        ValueError: "custom_system.lagrangian: <reason>", or as custom_system().
    """
    coordinates, velocities = list(coordinates), list(velocities)
    if len(velocities) != len(coordinates):
        raise ValueError(f"custom_system.lagrangian: {len(velocities)} velocities for "
                         f"{len(coordinates)} coordinates")
    lagrangian = sympy.expand(sympy.sympify(lagrangian))
    mass = sympy.hessian(lagrangian, velocities)
    if any(entry.has(*velocities) for entry in mass):
        raise ValueError("custom_system.lagrangian: not quadratic in the velocities")
    at_rest = {v: 0 for v in velocities}
    linear = [sympy.simplify(sympy.diff(lagrangian, v).subs(at_rest)) for v in velocities]
    if any(term != 0 for term in linear):
        raise ValueError("custom_system.lagrangian: has terms linear in the velocities "
                         f"(dL/dq' at q' = 0 is {linear}); nhsimd takes L = T - V with T "
                         "quadratic")
    potential = -lagrangian.subs(at_rest)
    return custom_system(coordinates, sympy.simplify(potential), constraints,
                         mass_matrix=sympy.simplify(mass), parameters=parameters)
