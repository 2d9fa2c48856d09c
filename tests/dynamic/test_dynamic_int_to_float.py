"""A dynamic int made a float (``step / 10``, ``float(n)``, ``0.9 ** n``, ``min(1.0, n / 10)``)
stays dynamic (families/scalars.py recipes over the int inputs): one entry serves every value, the
graph computes the float from the int's placeholder, and what Python decides on it is guarded
as an expression, never as the int's value. Values are Python's bit for bit, exceptions included."""
from __future__ import annotations

import math
import warnings

import pytest
import torch

import autograph
from autograph.runtime.shim import RecompileLimitWarning
from tests.dynamic.exact import same

X = torch.arange(16.0).reshape(4, 4) / 7
EDGES = (0, 1, -1, 2, 3, -7, 10, 11, 2 ** 53 - 1, 2 ** 53, 2 ** 53 + 1, -(2 ** 53) - 3, 2 ** 61 + 12345,
         -(2 ** 61) - 99, 2 ** 62 + 5, 2 ** 70 + 1)


pytestmark = pytest.mark.usefixtures("eager_settings")


def outcome(fn, *args):
    try:
        return fn(*args), None
    except Exception as exc:  # noqa: BLE001 - compared with the compiled call's
        return None, exc


def run(fn, values, backend="eager", recompiles_allowed=False):
    """Call ``fn(X, s)`` compiled and plainly for each value; same results or same exceptions."""
    compiled = autograph.compile(fn, backend=backend)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore" if recompiles_allowed else "error", RecompileLimitWarning)
        for s in values:
            expected, error = outcome(fn, X, s)
            got, got_error = outcome(compiled, X, s)
            if error is not None:
                assert type(got_error) is type(error) and str(got_error) == str(error), (s, got_error, error)
            else:
                assert got_error is None, (s, got_error)
                same(got, expected)
    return compiled


CASES = {
    "div": lambda x, s: x * (s / 10),
    "min_float": lambda x, s: x * min(1.0, s / 10),
    "abs": lambda x, s: x + abs(s - 6),
    "float": lambda x, s: x * float(s),
    "pow": lambda x, s: x * (0.9 ** s),
    "round": lambda x, s: x * round(s / 3),
    "times_a_float": lambda x, s: x * (s * 0.5 + 1.0),
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("backend", ["eager", "auto"])
def test_twelve_values_compile_twice(name, backend):
    compiled = run(CASES[name], range(12), backend=backend)
    assert compiled.stats.captures <= 2, name


def test_the_python_values_are_pythons_on_edge_ints():
    def f(x, s):
        a = s / 10
        b = 10 / s
        c = float(s)
        return x * a, a, b, c, s / 3, round(s / 2), round(s / 3), abs(s - 6), min(1.0, a), max(s, 2.5), \
            s * 0.1, s + 0.5, s // 2.5, s % 2.5

    run(f, (3, 4) + EDGES[1:] + (0, 5))  # 0 last-but-one: 10 / 0 raises where Python raises


def test_division_by_a_dynamic_zero_raises_at_the_same_place():
    def f(x, s):
        y = x * 2
        return y, 1 / s

    compiled = run(f, (3, 4, 5))
    assert compiled.stats.captures == 2
    with pytest.raises(ZeroDivisionError, match="division by zero"):
        compiled(X, 0)
    same(compiled(X, 6), f(X, 6))


def test_powers_of_a_float_base_keep_pythons_errors_and_types():
    def f(x, s):
        return x * 0.5, 0.9 ** s, (-0.9) ** s, 2.0 ** s, s ** 0.5, s ** -1

    assert run(f, (3, 4, 5, 6, 7, 9)).stats.captures == 2
    autograph.reset()
    # (-2) ** 0.5 is complex, 2.0 ** 1100 an OverflowError, 0 ** -1 a ZeroDivisionError: each a new entry
    run(f, (3, 4, 5, 1, 2, -2, -3, 700, 1100, -1100, 0), recompiles_allowed=True)


def test_an_int_tensor_times_a_dynamic_float_has_eagers_dtype():
    def f(x, s):
        return x.long() * (s / 4), torch.full((2,), s / 4), x.int() + float(s)

    compiled = run(f, range(2, 12))
    assert compiled.stats.captures == 2


def test_a_branch_on_the_float_guards_the_decision_not_the_int():
    def f(x, s):
        beta = min(1.0, s / 10)
        if beta < 1.0:
            return x * beta
        return x - 1

    compiled = run(f, range(20))
    assert compiled.stats.captures <= 3


def test_comparing_a_dynamic_int_with_a_float_is_pythons_comparison():
    def f(x, s):
        if s > 4.5:
            return x * 2, s == 3.0, 2.5 <= s, s != 0.0
        return x - 1, s == 3.0, 2.5 <= s, s != 0.0

    compiled = run(f, tuple(range(12)) + (2 ** 53 + 1, -(2 ** 61)))
    assert compiled.stats.captures <= 3


def test_autocast_enabled_by_a_residue_guards_the_residue():
    def f(x, step):
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=step % 3 == 0):
            return (x @ x).float()

    compiled = run(f, range(12))
    assert compiled.stats.captures <= 3


def test_autocast_enabled_by_a_float_made_from_the_int_guards_the_decision():
    def f(x, step):
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=step / 10 < 0.5):
            return (x @ x).float()

    compiled = run(f, range(12))
    assert compiled.stats.captures <= 3


class Tiny(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)


def test_a_training_step_with_a_warm_up_factor_compiles_once_or_twice():
    def train_step(model, opt, batch, step, warmup=10):
        factor = min(1.0, (step + 1) / warmup)
        loss = model.lin(batch).pow(2).mean() * factor
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss.detach(), factor

    torch.manual_seed(0)
    model = Tiny()
    twin = Tiny()
    twin.load_state_dict(model.state_dict())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    twin_opt = torch.optim.SGD(twin.parameters(), lr=0.1)
    compiled = autograph.compile(train_step)
    batch = torch.randn(8, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RecompileLimitWarning)
        for step in range(14):
            same(compiled(model, opt, batch, step), train_step(twin, twin_opt, batch, step))
            for p, q in zip(model.parameters(), twin.parameters()):
                assert torch.equal(p, q)
    assert compiled.stats.captures <= 2


def test_math_functions_of_a_dynamic_int_stay_exact():
    # (a math function specialises, as on a4589c8: this guards the values beside the new recipes)
    def f(x, s):
        return x * math.cos(s), math.sqrt(abs(s)), math.log(s) if s > 0 else 0.0

    run(f, (3, 4, 5, 0, 1, 100))


def test_a_negative_constant_operand_keeps_its_sign_in_the_recipe():
    # the recipe's text once read ``(-0.5 ** dt)``, which Python parses as ``-(0.5 ** dt)``
    def f(x, dt, n):
        return x + 1, (-0.5) ** dt, (-0.5) ** n, -(2.0 ** dt), 3.0 - -dt

    compiled = autograph.compile(f, backend="eager")
    for v in (1, 2, 3, 4, 6):
        same(compiled(X, float(v), v), f(X, float(v), v))
    assert compiled.stats.captures == 2


def test_a_float_the_shape_env_decides_on_is_also_guarded_by_its_exact_python_value():
    # interpolate's output size reads the scale: torch guards it in its own (sympy) float algebra,
    # which does not round as IEEE does; the entry also checks the number Python computes
    from autograph.guards.model import SHAPE_RELATION

    def f(x, s):
        return torch.nn.functional.interpolate(x[None, None], scale_factor=1 + s / 8)

    compiled = run(f, (4, 5, 4, 6), recompiles_allowed=True)
    assert any(g.kind is not SHAPE_RELATION and "(1 + (s / 8)) == " in g.src
               for entry in compiled.entries for g in entry.guards.guards)


def test_integer_powers_with_a_dynamic_exponent():
    def f(x, s):
        return x * 2 ** s, 3 ** s, s ** -1 if s else None

    compiled = run(f, (3, 4, 5, 6, 7, 9, 20))
    assert compiled.stats.captures == 2
