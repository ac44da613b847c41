"""nhsim.symbolic: custom_system specs from sympy, checked against the printer's exact text and
against a real nhsimd running the same system written by hand (examples/)."""

import json

import numpy as np
import pytest
import sympy as sp

import nhsim
import nhsim.symbolic as symbolic

from conftest import EXAMPLES

x, y, z, eps = sp.symbols("x y z epsilon")
xd, yd, zd = sp.symbols("xd yd zd")
CONTACT_V = (x**2 + y**2 + z**2) / 2 + eps * x**2 * z**2 / 2


@pytest.mark.parametrize("expr, text", [
    (x**2 / 2, "x^2/2"),
    (-x**2, "-x^2"),
    ((x + y)**3, "(x + y)^3"),
    (x**-2, "x^(-2)"),
    (x**sp.Rational(3, 2), "x^(3/2)"),
    (x**y, "x^(y)"),
    (2**(x + 1), "2^(x + 1)"),
    (sp.sqrt(x**2 + 1), "sqrt(x^2 + 1)"),
    (1 / sp.sqrt(x), "1/sqrt(x)"),
    (sp.E * sp.Abs(x - y), "exp(1)*abs(x - y)"),
    (sp.exp(-z**2 / 2) + sp.pi, "pi + exp(-z^2/2)"),
    (sp.Float(0.1) * x, "0.1*x"),  # the double 0.1, all its digits
    (sp.Float(1 / 3) * x, "0.3333333333333333*x"),
    (sp.sin(x) * sp.cos(y) / sp.tan(z) + sp.log(x), "log(x) + sin(x)*cos(y)/tan(z)"),
])
def test_to_expression_prints_nhsimd_syntax(expr, text):
    assert symbolic.to_expression(expr, [x, y, z]) == text


@pytest.mark.parametrize("expr, reason", [
    (sp.sinh(x), "'sinh(x)' (sinh) is not supported"),
    (x + sp.I, "'I' (ImaginaryUnit) is not supported"),
    (sp.oo * x, "(Infinity) is not supported"),
    (x + sp.Symbol("w"), "unknown symbol 'w' (not a coordinate or a parameter)"),
])
def test_to_expression_refuses_what_nhsimd_would_with_the_field(expr, reason):
    with pytest.raises(ValueError) as error:
        symbolic.to_expression(expr, [x, y, z], "custom_system.potential")
    assert str(error.value).startswith("custom_system.potential: ")
    assert reason in str(error.value)


def test_contact_oscillator_message():
    system = symbolic.custom_system([x, y, z], CONTACT_V, [[1, 0, y]],
                                    parameters={eps: (0.5, "1")})
    assert system == {
        "coordinates": ["x", "y", "z"],
        "parameters": [{"name": "epsilon", "value": 0.5, "unit": "1"}],
        "mass_matrix": [{"entries": ["1", "0", "0"]}, {"entries": ["0", "1", "0"]},
                        {"entries": ["0", "0", "1"]}],
        "potential": "epsilon*x^2*z^2/2 + x^2/2 + y^2/2 + z^2/2",
        "constraints": [{"entries": ["1", "0", "y"]}],
    }
    lagrangian = (xd**2 + yd**2 + zd**2) / 2 - CONTACT_V
    assert symbolic.custom_system_from_lagrangian(
        [x, y, z], [xd, yd, zd], lagrangian, [[1, 0, y]], parameters={eps: (0.5, "1")}) == system


def test_control_forces_are_printed_as_rows():
    system = symbolic.custom_system([x, y, z], CONTACT_V, [[1, 0, y]],
                                    parameters={eps: 0.5},
                                    control_forces=[[sp.cos(z), sp.sin(z), 0], [0, 0, 1]])
    assert system["control_forces"] == [{"entries": ["cos(z)", "sin(z)", "0"]},
                                        {"entries": ["0", "0", "1"]}]
    with pytest.raises(ValueError, match=r"^custom_system.control_forces\[0\]: has 2 entries"):
        symbolic.custom_system([x, y, z], CONTACT_V, [[1, 0, y]], parameters={eps: 0.5},
                               control_forces=[[1, 0]])


def test_holonomic_constraints_are_printed_one_expression_each():
    length = sp.Symbol("l")
    system = symbolic.custom_system([x, y, z], z, [],
                                    holonomic_constraints=[(x**2 + y**2 + z**2 - length**2) / 2],
                                    parameters={length: 1.0})
    assert system["constraints"] == []
    assert system["holonomic_constraints"] == ["-l^2/2 + x^2/2 + y^2/2 + z^2/2"]
    with pytest.raises(ValueError, match=r"^custom_system.holonomic_constraints\[0\]: .*'w'"):
        symbolic.custom_system([x, y, z], z, [], holonomic_constraints=[sp.Symbol("w")])


def test_row_lengths_and_lagrangians_are_checked():
    eps_value = {eps: 0.5}
    with pytest.raises(ValueError, match=r"^custom_system.constraints\[0\]: has 2 entries, "
                                         r"expected 3"):
        symbolic.custom_system([x, y, z], CONTACT_V, [[1, 0]], parameters=eps_value)
    with pytest.raises(ValueError, match=r"^custom_system.constraints\[0\]\[2\]: .*'w'"):
        symbolic.custom_system([x, y, z], CONTACT_V, [[1, 0, sp.Symbol("w")]],
                               parameters=eps_value)
    with pytest.raises(ValueError, match=r"^custom_system.potential: unknown symbol 'epsilon'"):
        symbolic.custom_system([x, y, z], CONTACT_V, [[1, 0, y]])  # epsilon not given
    with pytest.raises(ValueError, match="linear in the velocities"):
        symbolic.custom_system_from_lagrangian([x, y, z], [xd, yd, zd],
                                               xd**2 / 2 + y * xd - CONTACT_V, [[1, 0, y]],
                                               parameters=eps_value)
    with pytest.raises(ValueError, match="not quadratic in the velocities"):
        symbolic.custom_system_from_lagrangian([x, y, z], [xd, yd, zd],
                                               xd**4 + yd**2 + zd**2, [[1, 0, y]])


def _contact_spec(system):
    """examples/custom_contact_oscillator.json with `system` as its custom_system, 8 states,
    t = 10."""
    spec = json.loads((EXAMPLES / "custom_contact_oscillator.json").read_text(encoding="utf-8"))
    spec["custom_system"] = system
    spec["initial_conditions"]["energy_shell"]["count"] = 8
    spec["t_final"] = 10
    return spec


def test_the_server_runs_the_sympy_system_as_the_hand_written_one(server):
    example = json.loads((EXAMPLES / "custom_contact_oscillator.json").read_text(
        encoding="utf-8"))["custom_system"]
    mine = symbolic.custom_system([x, y, z], CONTACT_V, [[1, 0, y]],
                                  parameters={eps: (0.5, "1")})
    with nhsim.Client(server.address) as client:
        frames = []
        for system in (example, mine):
            job = client.submit(_contact_spec(system))
            assert job.watch(progress=False).state == "SUCCEEDED"
            frames.append(job.result().to_dataframe())
    by_hand, from_sympy = frames
    assert len(by_hand) == len(from_sympy) > 0
    assert list(by_hand["observable"]) == list(from_sympy["observable"])
    # V is summed in another order (sympy distributes the 1/2), so agreement is to round-off,
    # relative to each observable's scale (energy errors are differences of O(1) energies).
    for column in ("mean", "min", "max"):
        scale = np.maximum(1.0, np.abs(by_hand[column].to_numpy()))
        assert np.max(np.abs(by_hand[column] - from_sympy[column]) / scale) < 1e-12, column


def test_invariants_are_printed_and_sampled_by_the_server(server):
    p_x, p_y, p_z = symbolic.momenta([x, y, z])
    energy = (p_x**2 + p_y**2 + p_z**2) / 2 + CONTACT_V
    system = symbolic.custom_system([x, y, z], CONTACT_V, [[1, 0, y]], parameters={eps: 0.5},
                                    invariants={"H": energy, "px": p_x})
    assert system["invariants"] == [
        {"name": "H", "expression": "epsilon*x^2*z^2/2 + p_x^2/2 + p_y^2/2 + p_z^2/2 + x^2/2 + "
                                    "y^2/2 + z^2/2"},
        {"name": "px", "expression": "p_x"}]
    with pytest.raises(ValueError, match=r"^custom_system.invariants\[0\].expression: .*'p_w'"):
        symbolic.custom_system([x, y, z], CONTACT_V, [[1, 0, y]], parameters={eps: 0.5},
                               invariants={"bad": sp.Symbol("p_w")})
    with nhsim.Client(server.address) as client:
        job = client.submit(_contact_spec(system))
        assert job.watch(progress=False).state == "SUCCEEDED"
        stats = job.result().to_dataframe()
    assert {"energy_error", "H", "px"} <= set(stats["observable"])
    # The examples' states lie on the shell H = 1, and gonzalez_r keeps H to round-off.
    h = stats.query("observable == 'H' and integrator == 'gonzalez_r'")
    assert np.max(np.abs(h["mean"] - 1.0)) < 1e-12
    assert np.max(np.abs(h["min"] - 1.0)) < 1e-12 and np.max(np.abs(h["max"] - 1.0)) < 1e-12


def test_a_registered_system_runs_by_name(server):
    system = symbolic.custom_system([x, y, z], CONTACT_V, [[1, 0, y]], parameters={eps: 0.5})
    with nhsim.Client(server.address) as client:
        info = client.register_system("contact_py", system, "from sympy")
        assert isinstance(info, nhsim.System)
        assert info.name == "contact_py" and "gonzalez_r" in info.integrators
        assert "contact_py" in list(client.systems()["name"])
        spec = _contact_spec(system)
        del spec["custom_system"]
        spec["system"] = "contact_py"
        job = client.submit(spec)
        assert job.watch(progress=False).state == "SUCCEEDED"
        with pytest.raises(nhsim.NhsimError) as error:
            client.register_system("contact_py", system)
        assert error.value.code == "ALREADY_EXISTS"
        client.delete_system("contact_py")
        assert "contact_py" not in list(client.systems()["name"])


def test_the_server_names_the_field_of_what_it_refuses(server):
    # A mass matrix that depends on q passes the helper and the server; si_dla, the example's
    # second integrator, needs a constant one and is refused by its field.
    lagrangian = (1 + x**2) * xd**2 / 2 + (yd**2 + zd**2) / 2 - CONTACT_V
    system = symbolic.custom_system_from_lagrangian([x, y, z], [xd, yd, zd], lagrangian,
                                                    [[1, 0, y]], parameters={eps: 0.5})
    assert system["mass_matrix"][0]["entries"][0] == "x^2 + 1"
    with nhsim.Client(server.address) as client, pytest.raises(nhsim.NhsimError) as error:
        client.submit(_contact_spec(system))
    assert error.value.code == "INVALID_ARGUMENT"
    assert error.value.message == ("integrators[1].integrator: does not apply to system "
                                   "'custom_system': si_dla needs a constant mass matrix")
